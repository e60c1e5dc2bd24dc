import { expect } from 'vitest';
import type { PrometheusMetrics } from '../../src/observability/prometheus.ts';
import { BASE, type Sent, sent, type TestApp } from './app.ts';

/**
 * For tests of a fast path against the path it stands in for: two apps over one database, `fast`
 * with the fast path and `slow` without, sent the same requests, and a counter of what the fast
 * path answered and declined.
 */
export interface Alike {
  fast: TestApp;
  slow: TestApp;
  counter: PrometheusMetrics;
}

/** A GraphQL POST to the gateway, with `variables` only when given. */
export function post(
  query: string,
  variables: Record<string, unknown> | undefined,
  headers: Record<string, string>,
): Request {
  return new Request(`${BASE}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
  });
}

/** The `answered` and `declined` counts of the counter `metric` (its series matching `labels`). */
export async function outcomes(
  counter: PrometheusMetrics,
  metric: string,
  labels: Record<string, string> = {},
): Promise<{ answered: number; declined: number }> {
  const values = (await counter.registry.getSingleMetric(metric)!.get()).values;
  const of = (outcome: string) =>
    values.find(
      (v) =>
        v.labels.outcome === outcome && Object.entries(labels).every(([k, value]) => v.labels[k] === value),
    )?.value ?? 0;
  return { answered: of('answered'), declined: of('declined') };
}

/**
 * Sends a request three times to `fast` and to `slow` (a gateway prepares what it may from the
 * second time on, a path of its own): the same answer each time (status, headers, body text), and
 * each time counted by `count` as `outcome` says (`answered`, `declined`, or any other word for a
 * request the fast path never took). Returns the last answer.
 */
export async function sendThrice(
  apps: Alike,
  count: (counter: PrometheusMetrics) => Promise<{ answered: number; declined: number }>,
  request: () => Request,
  outcome: string,
): Promise<Sent> {
  let last: Sent | undefined;
  for (let i = 0; i < 3; i++) {
    const before = await count(apps.counter);
    const a = await sent(await apps.fast.handle(request()));
    const after = await count(apps.counter);
    const b = await sent(await apps.slow.handle(request()));
    expect(a).toEqual(b);
    expect({
      answered: after.answered - before.answered,
      declined: after.declined - before.declined,
    }).toEqual({
      answered: outcome === 'answered' ? 1 : 0,
      declined: outcome === 'declined' ? 1 : 0,
    });
    last = a;
  }
  return last!;
}
