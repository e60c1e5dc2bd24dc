/**
 * The explorer's example operations (src/gateway/explorer/examples.ts) work on the demo tenant
 * as it is loaded: signed in by the first, every other answers without an error and with data,
 * and the one that shows a mutation's own errors shows one and saves nothing.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, examplesDocument } from '../../src/gateway/explorer/examples.ts';
import { type DemoApp, startDemoApp } from '../helpers/app.ts';

let demo: DemoApp;
let session: Record<string, string>;

beforeAll(async () => {
  demo = await startDemoApp();
  const signIn = EXAMPLES.find((e) => e.name === 'SignIn')!;
  const r = await demo.app.graphql<any>(signIn.query);
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.signIn.errors).toEqual([]);
  const sessionId = r.headers.get('x-svc-sessionid');
  expect(sessionId).toBeTruthy();
  session = { 'x-svc-sessionid': sessionId! };
}, 120_000);
afterAll(async () => {
  await demo?.app.close();
});

describe('the explorer examples', () => {
  it('are one document of named operations, each named as its example', () => {
    const names = parse(examplesDocument()).definitions.map((d) => ('name' in d ? d.name?.value : undefined));
    expect(names).toEqual(EXAMPLES.map((e) => e.name));
  });

  it.each(EXAMPLES.filter((e) => e.name !== 'SignIn').map((e) => [e.name, e] as const))(
    '%s answers on the demo data',
    async (name, example) => {
      const r = await demo.app.graphql<any>(example.query, example.variables, session);
      expect(r.status).toBe(200);
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      const text = JSON.stringify(r.body.data);
      switch (name) {
        case 'WellsPage':
          expect(r.body.data.assets.all.totalCount).toBe(24);
          expect(r.body.data.assets.all.edges).toHaveLength(10);
          break;
        case 'EquipmentNeedingAttention': {
          const units = r.body.data.assetFilter.assets.edges;
          expect(units.length).toBeGreaterThan(0);
          const sensors = units.flatMap((u: any) => u.node.related.assets);
          expect(sensors.length).toBeGreaterThan(0);
          expect(sensors.some((s: any) => typeof s.observation?.value === 'number')).toBe(true);
          break;
        }
        case 'WellIssues':
          expect(r.body.data.assets.byId.issueSubject.issues.edges.length).toBeGreaterThan(0);
          break;
        case 'ExportWells': {
          const url = r.body.data.assetProfiles.byId.assetsExport.csvFileDownloadUrl;
          const file = await demo.app.handle(new Request(url));
          expect(file.status).toBe(200);
          const lines = (await file.text()).trim().split('\n');
          expect(lines[0]).toMatch(/name/);
          expect(lines.length).toBeGreaterThan(1);
          break;
        }
        case 'CreateFilterWithAnError':
          expect(r.body.data.createAssetFilter.assetFilter).toBeNull();
          expect(r.body.data.createAssetFilter.errors).toEqual([
            expect.objectContaining({
              type: expect.any(String),
              message: expect.stringContaining('depthInFeet'),
            }),
          ]);
          break;
        default:
          throw new Error(`no expectation for ${name}: ${text}`);
      }
    },
  );
});
