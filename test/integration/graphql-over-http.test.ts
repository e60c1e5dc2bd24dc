import { type Audit, type AuditResult, serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_PATH } from '../../src/gateway/gateway.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The GraphQL-over-HTTP conformance audits of `graphql-http`, run in-process against the
 * gateway's endpoint. Every MUST audit has to pass; SHOULD and MAY audits are run and
 * reported, not asserted.
 */

let t: TestApp;
let audits: Audit[];

beforeAll(async () => {
  t = await startTestApp();
  audits = serverAudits({
    url: `${BASE}${GRAPHQL_PATH}`,
    fetchFn: (input: RequestInfo | URL, init?: RequestInit) => t.handle(new Request(input, init)),
  });
});
afterAll(() => t.close());

const levelOf = (audit: Pick<Audit, 'name'>) => audit.name.split(' ', 1)[0] as 'MUST' | 'SHOULD' | 'MAY';

/** Runs audits one at a time; an audit that throws (a fatal failure) is reported as an error. */
async function run(selected: Audit[]): Promise<AuditResult[]> {
  const results: AuditResult[] = [];
  for (const audit of selected) {
    try {
      results.push(await audit.fn());
    } catch (e) {
      results.push({
        id: audit.id,
        name: audit.name,
        status: 'error',
        reason: `threw: ${(e as Error)?.stack ?? String(e)}`,
        response: Response.error(),
      });
    }
  }
  return results;
}

const describeFailure = (r: AuditResult) =>
  r.status === 'ok' ? `${r.id} ${r.name}: ok` : `${r.id} ${r.name} [${r.status}]: ${r.reason}`;

describe(`GraphQL over HTTP conformance of ${GRAPHQL_PATH}`, () => {
  it('passes every MUST audit', async () => {
    const must = audits.filter((a) => levelOf(a) === 'MUST');
    expect(must.length).toBeGreaterThan(0);
    const results = await run(must);
    const failures = results.filter((r) => r.status !== 'ok');
    console.info(`GraphQL over HTTP: MUST ${results.length - failures.length}/${results.length} passed`);
    expect(
      failures.map(describeFailure),
      `failing MUST audits:\n${failures.map(describeFailure).join('\n')}`,
    ).toEqual([]);
  });

  it('reports the SHOULD and MAY audits', async () => {
    const summary: string[] = [];
    for (const level of ['SHOULD', 'MAY'] as const) {
      const selected = audits.filter((a) => levelOf(a) === level);
      const results = await run(selected);
      expect(results).toHaveLength(selected.length);
      const failures = results.filter((r) => r.status !== 'ok');
      summary.push(`${level} ${results.length - failures.length}/${results.length} passed`);
      for (const f of failures) summary.push(`  ${describeFailure(f)}`);
    }
    console.info(`GraphQL over HTTP (recommendations, not asserted):\n${summary.join('\n')}`);
  });

  it('classifies every audit as MUST, SHOULD or MAY', () => {
    expect(audits.filter((a) => !['MUST', 'SHOULD', 'MAY'].includes(levelOf(a))).map((a) => a.name)).toEqual(
      [],
    );
  });
});
