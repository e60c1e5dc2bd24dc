import { describe, expect, it } from 'vitest';
import { lagBound, parseLsn, pickReplica, replicaFailure, statementKind } from './replica-rules.ts';

describe('read routing decisions', () => {
  it('sends only reads that neither write nor lock to a replica', () => {
    expect(statementKind('select * from assets where user_group = $1')).toBe('read');
    expect(statementKind('  (select 1) union (select 2)')).toBe('read');
    expect(statementKind('with t as (select 1) select * from t')).toBe('read');
    expect(statementKind('select "updated_at", "deleted" from issues')).toBe('read');
    for (const write of [
      'insert into issues (id) values ($1)',
      'update sessions set last_seen_at = $1',
      'delete from sessions where id_hash = $1',
      'with moved as (delete from a returning *) select * from moved',
      'select * from assets where id = $1 for update',
      'select * from assets for share',
      'select * from assets for no key update',
      "select nextval('issue_numbers')",
      "select pg_notify('assetql_profiles', '')",
      'select pg_advisory_lock(1)',
      'truncate assets',
      'create table t (a int)',
      'merge into t using s on true when matched then do nothing',
    ])
      expect(statementKind(write), write).toBe('write');
    expect(statementKind('set local enable_sort = off')).toBe('setting');
    expect(statementKind('show statement_timeout')).toBe('setting');
  });

  it('reads LSNs as PostgreSQL prints them', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('0/253C1AA8')).toBe(0x253c1aa8n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
  });

  it('bounds the lag by what the primary had flushed the bound ago', () => {
    const samples = [
      { at: 1_000, lsn: 100n },
      { at: 2_000, lsn: 200n },
      { at: 3_000, lsn: 300n },
    ];
    expect(lagBound(samples, 3_000, 2_000)).toBe(100n);
    expect(lagBound(samples, 4_500, 2_000)).toBe(200n);
    expect(lagBound(samples, 9_000, 2_000)).toBe(300n);
    // Too soon after the start to judge.
    expect(lagBound(samples, 2_500, 2_000)).toBe(0n);
  });

  it("picks a replica that has replayed the session's last write, in turn, else one to wait for", () => {
    const a = { name: 'a', replayed: 100n };
    const b = { name: 'b', replayed: 300n };
    expect(pickReplica([], undefined, 0)).toBeUndefined();
    expect(pickReplica([a, b], undefined, 0)).toEqual({ read: a });
    expect(pickReplica([a, b], undefined, 1)).toEqual({ read: b });
    expect(pickReplica([a, b], 200n, 0)).toEqual({ read: b });
    expect(pickReplica([a, b], 200n, 7)).toEqual({ read: b });
    expect(pickReplica([a, b], 300n, 0)).toEqual({ read: b });
    expect(pickReplica([a, b], 301n, 0)).toEqual({ wait: b });
  });

  it('asks the primary after a replica that went away or could not run the read, not after any error', () => {
    expect(replicaFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      'down',
    );
    expect(replicaFailure(new Error('Connection terminated unexpectedly'))).toBe('down');
    for (const code of ['08006', '08001', '57P01', '57P02', '57P03', '53300'])
      expect(replicaFailure({ code }), code).toBe('down');
    for (const code of ['25006', '40001', '40P01']) expect(replicaFailure({ code }), code).toBe('refused');
    // A statement timeout, a syntax error, a broken constraint: the same on the primary.
    for (const code of ['57014', '42601', '23505']) expect(replicaFailure({ code }), code).toBeUndefined();
  });
});
