import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangeStamp, withChangeStamp } from '../../src/storage/change-log.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

// Who made a change reaches the change log's triggers with the statements themselves
// (src/storage/change-log.ts): a lone write carries its stamp in the same pipeline, a transaction
// at its `begin`; neither leaks to what the connection runs next.

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.close());

const stamp = (actor: string, correlationId: string | null = null): ChangeStamp => ({
  actorKind: 'USER',
  actor,
  correlationId,
});

/** The actor and correlation id the log recorded for profile `profile`'s entries, oldest first. */
async function actorsOf(profile: string): Promise<[string | null, string | null, string][]> {
  const r = await database.pool.query(
    `select actor, correlation_id, kind from changes where user_group = 'stamps' and profile = $1 order by tx, seq`,
    [profile],
  );
  return r.rows.map((row) => [row.actor, row.correlation_id, row.kind]);
}

const INSERT = `insert into asset_profiles (user_group, profile, title, owner_username) values ('stamps', $1, $2, 'owner')`;
const RENAME = `update asset_profiles set title = $2 where user_group = 'stamps' and profile = $1`;

describe('change stamps', () => {
  it('records a lone write as its own, and leaves nothing behind on the connection', async () => {
    const client = await database.pool.connect();
    try {
      await withChangeStamp(stamp("o'brien", 'req-1'), () => client.query(INSERT, ['lone', 'Lone']));
      // The same connection, outside stamped work: no actor.
      await client.query(RENAME, ['lone', 'Lone, renamed by nobody']);
      // Without parameters: still a statement of its own behind the stamp.
      await withChangeStamp(stamp('second', 'req-2'), () =>
        client.query(
          `update asset_profiles set title = 'Literal' where user_group = 'stamps' and profile = 'lone'`,
        ),
      );
      // Several statements in one text, as pg sends a text without parameters: each answers.
      const both = (await withChangeStamp(stamp('third', 'req-3'), () =>
        client.query(
          `update asset_profiles set title = 'One' where user_group = 'stamps' and profile = 'lone';
           update asset_profiles set title = 'Two' where user_group = 'stamps' and profile = 'lone' returning title`,
        ),
      )) as unknown as { command: string; rows: unknown[] }[];
      expect(both.map((r) => [r.command, r.rows])).toEqual([
        ['UPDATE', []],
        ['UPDATE', [{ title: 'Two' }]],
      ]);
      expect(await client.query('select 1 as one').then((r) => r.rows)).toEqual([{ one: 1 }]);
      expect(client.getTransactionStatus()).toBe('I');
    } finally {
      client.release();
    }
    expect(await actorsOf('lone')).toEqual([
      ["o'brien", 'req-1', 'CREATED'],
      [null, null, 'UPDATED'],
      ['second', 'req-2', 'UPDATED'],
      ['third', 'req-3', 'UPDATED'],
      ['third', 'req-3', 'UPDATED'],
    ]);
  });

  it('answers a stamped statement exactly as an unstamped one', async () => {
    const returning = `${INSERT} returning profile, title`;
    const r = await withChangeStamp(stamp('answers'), () =>
      database.pool.query(returning, ['answered', 'Answered']),
    );
    expect(r.rows).toEqual([{ profile: 'answered', title: 'Answered' }]);
    expect(r.rowCount).toBe(1);
    expect(r.command).toBe('INSERT');
    const none = await withChangeStamp(stamp('answers'), () => database.pool.query(RENAME, ['nobody', 'x']));
    expect(none.rowCount).toBe(0);
  });

  it('keeps a statement’s options, and a begin that ends in a comment still stamps', async () => {
    const client = await database.pool.connect();
    try {
      const rows = await withChangeStamp(stamp('options'), () =>
        client.query({
          text: `insert into asset_profiles (user_group, profile, title, owner_username)
                 values ('stamps', 'options', 'Options', 'owner') returning profile, title`,
          rowMode: 'array',
        }),
      );
      expect(rows.rows).toEqual([['options', 'Options']]);
      await withChangeStamp(stamp('commented'), async () => {
        await client.query('begin -- a comment to the end of the line');
        await client.query(RENAME, ['options', 'Commented']);
        await client.query('commit');
      });
    } finally {
      client.release();
    }
    expect(await actorsOf('options')).toEqual([
      ['options', null, 'CREATED'],
      ['commented', null, 'UPDATED'],
    ]);
  });

  it('writes nothing for a stamped statement that fails, and the connection goes on', async () => {
    const client = await database.pool.connect();
    try {
      await withChangeStamp(stamp('first'), () => client.query(INSERT, ['failing', 'Failing']));
      // A duplicate key: the statement fails, the stamp's settings go with its transaction.
      await expect(
        withChangeStamp(stamp('duplicate'), () => client.query(INSERT, ['failing', 'Again'])),
      ).rejects.toMatchObject({ code: '23505' });
      expect(client.getTransactionStatus()).toBe('I');
      await client.query(RENAME, ['failing', 'After']);
    } finally {
      client.release();
    }
    expect(await actorsOf('failing')).toEqual([
      ['first', null, 'CREATED'],
      [null, null, 'UPDATED'],
    ]);
  });

  it('stamps a transaction at its begin, every statement of it, and not the next one', async () => {
    const client = await database.pool.connect();
    try {
      await withChangeStamp(stamp('transaction', 'tx-1'), async () => {
        const begun = await client.query('begin');
        expect(begun.command).toBe('BEGIN');
        await client.query(INSERT, ['in-tx', 'In']);
        await client.query(RENAME, ['in-tx', 'Still in']);
        await client.query('commit');
      });
      await client.query(RENAME, ['in-tx', 'Outside']);
      // A transaction rolled back leaves no entry.
      await withChangeStamp(stamp('rolled back'), async () => {
        await client.query('begin');
        await client.query(RENAME, ['in-tx', 'Never']);
        await client.query('rollback');
      });
    } finally {
      client.release();
    }
    expect(await actorsOf('in-tx')).toEqual([
      ['transaction', 'tx-1', 'CREATED'],
      ['transaction', 'tx-1', 'UPDATED'],
      [null, null, 'UPDATED'],
    ]);
  });

  it("records an API key's id by every path, for API_KEY stamps only, and not past its work", async () => {
    const key = (apiKeyId: string): ChangeStamp => ({
      actorKind: 'API_KEY',
      actor: 'owner',
      apiKeyId,
      correlationId: null,
    });
    const client = await database.pool.connect();
    try {
      // A lone write with parameters (one pipeline), one without (one simple query), a transaction.
      await withChangeStamp(key('k-lone'), () => client.query(INSERT, ['keyed', 'Keyed']));
      await withChangeStamp(key("k-'literal"), () =>
        client.query(
          `update asset_profiles set title = 'Literal' where user_group = 'stamps' and profile = 'keyed'`,
        ),
      );
      await withChangeStamp(key('k-tx'), async () => {
        await client.query('begin');
        await client.query(RENAME, ['keyed', 'In a transaction']);
        await client.query('commit');
      });
      // A user's stamp handed a key id records none; nor does unstamped work after.
      await withChangeStamp({ ...stamp('user'), apiKeyId: 'k-ignored' }, () =>
        client.query(RENAME, ['keyed', 'By a user']),
      );
      await client.query(RENAME, ['keyed', 'By nobody']);
    } finally {
      client.release();
    }
    const r = await database.pool.query(
      `select actor_kind, actor_key from changes where user_group = 'stamps' and profile = 'keyed' order by tx, seq`,
    );
    expect(r.rows.map((row) => [row.actor_kind, row.actor_key])).toEqual([
      ['API_KEY', 'k-lone'],
      ['API_KEY', "k-'literal"],
      ['API_KEY', 'k-tx'],
      ['USER', null],
      [null, null],
    ]);
  });

  it('stamps the same statement text for each caller, however often it runs (prepared by name)', async () => {
    await database.pool.query(INSERT, ['repeated', 'Repeated 0']);
    // More runs than it takes a text to be named and a generic plan to be kept.
    for (let i = 1; i <= 8; i++)
      await withChangeStamp(stamp(`caller-${i}`, `c-${i}`), () =>
        database.pool.query(RENAME, ['repeated', `Repeated ${i}`]),
      );
    const actors = await actorsOf('repeated');
    expect(actors.slice(1)).toEqual(
      Array.from({ length: 8 }, (_, i) => [`caller-${i + 1}`, `c-${i + 1}`, 'UPDATED']),
    );
  });

  it('keeps callers apart when many stamped writes share the pool at once', async () => {
    await database.pool.query(INSERT, ['shared', 'Shared']);
    const n = 60;
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        withChangeStamp(stamp(`writer-${i}`, `w-${i}`), () =>
          database.pool.query(
            `update asset_profiles set title = $2 where user_group = 'stamps' and profile = $1 returning title`,
            ['shared', `by writer-${i}`],
          ),
        ),
      ),
    );
    const r = await database.pool.query(
      `select actor, correlation_id, after ->> 'title' as title from changes
       where user_group = 'stamps' and profile = 'shared' and kind = 'UPDATED'`,
    );
    expect(r.rows).toHaveLength(n);
    for (const row of r.rows) {
      expect(row.title).toBe(`by ${row.actor}`);
      expect(row.correlation_id).toBe(`w-${row.actor.slice('writer-'.length)}`);
    }
  });
});
