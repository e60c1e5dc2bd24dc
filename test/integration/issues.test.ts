import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;

beforeAll(async () => {
  ({ app: t, demo, east } = await startDemoApp());
});
afterAll(() => t.close());

const CREATE = `mutation($input: CreateIssueInput!, $cid: String) {
  createIssue(input: $input, correlationId: $cid) {
    correlationId errors { message type }
    issue { id displayName status createdAt audit { createdBy { userId } } subject { type reference } }
  }
}`;

describe('issues subgraph', () => {
  it('creates an issue for an asset and finds the asset through federation', async () => {
    const asset = await t.graphql<{
      assets: { byId: { issueSubject: { type: string; reference: string } } };
    }>(`{ assets(profile: "well") { byId(id: "W-200-2-3") { issueSubject { type reference } } } }`, {}, demo);
    const subject = asset.body.data!.assets.byId.issueSubject;
    expect(subject).toEqual({ type: 'asset', reference: 'well/W-200-2-3' });

    const created = await t.graphql<{ createIssue: Record<string, any> }>(
      CREATE,
      { input: { displayName: '  Leak at wellhead ', subject }, cid: 'client-42' },
      demo,
    );
    const result = created.body.data!.createIssue;
    expect(result.errors).toEqual([]);
    expect(result.correlationId).toBe('client-42');
    expect(result.issue).toMatchObject({
      displayName: 'Leak at wellhead',
      status: 'OPEN',
      audit: { createdBy: { userId: 'demo' } },
      subject,
    });

    // issues -> assets: the issue's subject resolves to the asset in the assets subgraph.
    const back = await t.graphql<any>(
      `query($id: ID!) { issues { byId(id: $id) { subject { assetReference { profile id asset { displayName properties(only: ["status"]) } } } } } }`,
      { id: result.issue.id },
      demo,
    );
    expect(back.body.errors).toBeUndefined();
    const ref = back.body.data.issues.byId.subject.assetReference;
    expect(ref.profile).toBe('well');
    expect(ref.id).toBe('W-200-2-3');
    expect(ref.asset.displayName).toBe('Peace 2-3');
    expect(Object.keys(ref.asset.properties)).toEqual(['status']);

    // assets -> issues: the asset's issue subject lists its issues from the issues subgraph.
    const forward = await t.graphql<any>(
      `{ assets(profile: "well") { byId(id: "W-200-2-3") { issueSubject { issues(first: 5) { edges { node { displayName } } } } } } }`,
      {},
      demo,
    );
    expect(forward.body.errors).toBeUndefined();
    expect(
      forward.body.data.assets.byId.issueSubject.issues.edges.map((e: any) => e.node.displayName),
    ).toEqual(['Leak at wellhead']);
  });

  it('pages through issues newest first with no gaps or repeats', async () => {
    for (let i = 0; i < 7; i++) {
      const r = await t.graphql<any>(CREATE, { input: { displayName: `Paged ${i}` } }, demo);
      expect(r.body.data.createIssue.errors).toEqual([]);
    }
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const r: any = await t.graphql(
        `query($after: String) { issues { all(first: 3, after: $after) { edges { node { displayName } } pageInfo { hasNextPage endCursor hasPreviousPage } } } }`,
        { after },
        demo,
      );
      const page = r.body.data.issues.all;
      seen.push(...page.edges.map((e: any) => e.node.displayName));
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      pages++;
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    // 7 paged + 1 from the test above + 1 demo issue.
    expect(seen).toHaveLength(9);
    expect(new Set(seen).size).toBe(9);
    expect(seen.slice(0, 7)).toEqual([
      'Paged 6',
      'Paged 5',
      'Paged 4',
      'Paged 3',
      'Paged 2',
      'Paged 1',
      'Paged 0',
    ]);
    expect(pages).toBe(3);
  });

  it('rejects bad input without writing anything', async () => {
    const before = await t.database.db
      .selectFrom('issues')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const r = await t.graphql<any>(CREATE, { input: { displayName: '   ' } }, demo);
    expect(r.body.data.createIssue).toMatchObject({ issue: null, errors: [{ type: 'INVALID_INPUT' }] });
    const tooBig = await t.graphql<any>(`{ issues { all(first: 501) { edges { node { id } } } } }`, {}, demo);
    expect(tooBig.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const badCursor = await t.graphql<any>(
      `{ issues { all(after: "nonsense") { edges { node { id } } } } }`,
      {},
      demo,
    );
    expect(badCursor.body.errors?.[0]?.message).toMatch(/cursor/);
    const after = await t.database.db
      .selectFrom('issues')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('keeps each group to its own issues', async () => {
    const r = await t.graphql<any>(`{ issues { all(first: 100) { edges { node { id } } } } }`, {}, east);
    expect(r.body.data.issues.all.edges).toEqual([]);
    const demoIssue = '5b0c1f0e-3d4a-4a53-9a57-2d1f6b0d9e01';
    const byId = await t.graphql<any>(
      `query($id: ID!) { issues { byId(id: $id) { id } } }`,
      { id: demoIssue },
      east,
    );
    expect(byId.body.data.issues.byId).toBeNull();
  });

  it('refuses anonymous callers, and mutations say so in the result', async () => {
    const r = await t.graphql<any>(`{ issues { all { edges { node { id } } } } }`);
    expect(r.body.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe('UNAUTHENTICATED');
    const m = await t.graphql<any>(CREATE, { input: { displayName: 'x' } });
    expect(m.body.data.createIssue.errors[0].type).toBe('UNAUTHENTICATED');
  });
});
