import { describe, expect, it } from 'vitest';
import { changeJson } from './change-json.ts';
import type { ChangeRow } from './changes.repository.ts';

const row: ChangeRow = {
  user_group: 'demo',
  tx: '1000',
  seq: '7',
  at: new Date('2026-12-02T10:00:00Z'),
  entity: 'ASSET',
  profile: 'well',
  entity_id: 'W-1',
  kind: 'UPDATED',
  version: 2,
  actor_kind: 'API_KEY',
  actor: 'demo',
  actor_key: 'etl',
  correlation_id: 'req-1',
  patch: [{ op: 'replace', path: '/properties/name', value: 'Two' }],
  before: { properties: { name: 'One' } },
  after: { properties: { name: 'Two' } },
};

describe('changeJson (webhooks and NATS)', () => {
  it("carries the actor with its API key's public id, null for any other kind", () => {
    expect(changeJson(row).actor).toEqual({ kind: 'API_KEY', name: 'demo', apiKeyId: 'etl' });
    // Without the patch and values (a payload too big) the actor stays.
    expect(changeJson(row, false)).toMatchObject({ actor: { apiKeyId: 'etl' } });
    expect(changeJson(row, false)).not.toHaveProperty('patch');
    expect(changeJson({ ...row, actor_kind: 'USER', actor_key: null }).actor).toEqual({
      kind: 'USER',
      name: 'demo',
      apiKeyId: null,
    });
    // An entry of an API key written before its id was recorded.
    expect(changeJson({ ...row, actor_key: null }).actor).toEqual({
      kind: 'API_KEY',
      name: 'demo',
      apiKeyId: null,
    });
    expect(changeJson({ ...row, actor_kind: null, actor: null, actor_key: null }).actor).toBeNull();
  });
});
