/**
 * Upper bound: bare `node:http` + `pg`, one statement per request (the best SQL for each shape,
 * JSON built in PostgreSQL), no GraphQL, no validation beyond what the SQL needs.
 */
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

const GROUP = process.env.PEER_GROUP ?? 'bench';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const FIVE = `jsonb_build_object('name', a.properties -> 'name', 'status', a.properties -> 'status',
  'depth', a.properties -> 'depth', 'uwi', a.properties -> 'uwi', 'facilityId', a.properties -> 'facilityId')`;
const PAGE = `select coalesce(json_agg(json_build_object('id', t.id, 'properties', t.p) order by t.id), '[]')::text as j
  from (select a.id, ${FIVE} as p from assets a where a.user_group = $1 and a.profile = 'well' and a.id > $2
        order by a.id limit 100) t`;
// Predicates as strict jsonpaths in coalesce(..., false), as assetql's filter compiler writes them,
// so the planner walks the primary key and stops at 100 rows (bench/peers/sql.ts, Q4).
const FILTERED = `select coalesce(json_agg(json_build_object('id', t.id, 'properties', t.p) order by t.id), '[]')::text as j
  from (select a.id, ${FIVE} as p from assets a where a.user_group = $1 and a.profile = 'well'
          and coalesce(a.properties @@ 'strict $.status == "producing"', false)
          and coalesce(a.properties @@ 'strict $.depth > 2500', false)
        order by a.id limit 100) t`;
const ASSET = `select json_build_object('id', f.id,
    'wells', (select coalesce(json_agg(json_build_object('id', a.id, 'properties', ${FIVE}) order by a.id), '[]')
              from assets a where a.user_group = $1 and a.profile = 'well'
                and a.lookup @> jsonb_build_object('facilityId', f.id)),
    'issues', (select coalesce(json_agg(json_build_object('id', i.id, 'displayName', i.display_name, 'status', i.status)
                 order by i.seq desc), '[]')
               from (select * from issues i where i.user_group = $1 and i.subject_type = 'asset'
                       and i.subject_reference = 'facility/' || f.id order by i.seq desc limit 10) i)
  )::text as j from assets f where f.user_group = $1 and f.profile = 'facility' and f.id = $2`;
const SESSION = `select json_build_object('username', s.username, 'userGroup', s.user_group,
    'authenticated', s.kind = 'session')::text as j
  from sessions s where s.id_hash = $1 and s.expires_at > now() and s.expires_at_hard > now()`;
const RENAME = `update asset_filters set display_name = $3, version = version + 1, updated_at = now()
  where user_group = $1 and id = $2 returning json_build_object('id', id, 'displayName', display_name)::text as j`;
const EXPORT = `copy (select a.id, a.display_name, a.properties ->> 'name', a.properties ->> 'status',
    a.properties ->> 'depth', a.properties ->> 'uwi', a.properties ->> 'facilityId'
  from assets a where a.user_group = '${GROUP.replaceAll("'", "''")}' and a.profile = 'well' order by a.id)
  to stdout with (format csv, header)`;

function send(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function one(text: string, values: unknown[]): Promise<string> {
  const { rows } = await pool.query({ text, values });
  return rows[0]?.j ?? 'null';
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams;
    switch (url.pathname) {
      case '/page':
        return send(res, 200, await one(PAGE, [GROUP, q.get('after') ?? '']));
      case '/filtered':
        return send(res, 200, await one(FILTERED, [GROUP]));
      case '/asset':
        return send(res, 200, await one(ASSET, [GROUP, q.get('id')]));
      case '/session': {
        const id = req.headers['x-svc-sessionid'];
        if (typeof id !== 'string') return send(res, 200, 'null');
        return send(res, 200, await one(SESSION, [createHash('sha256').update(id).digest()]));
      }
      case '/rename':
        req.resume();
        return send(res, 200, await one(RENAME, [GROUP, q.get('id'), q.get('name')]));
      case '/export': {
        const client = await pool.connect();
        try {
          res.writeHead(200, { 'content-type': 'text/csv' });
          await pipeline(client.query(copyTo(EXPORT)), res);
        } finally {
          client.release();
        }
        return;
      }
      default:
        return send(res, 404, '{"error":"not found"}');
    }
  } catch (e) {
    if (!res.headersSent) send(res, 500, JSON.stringify({ error: (e as Error).message }));
    else res.destroy();
  }
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address() as { port: number };
  process.stdout.write(`peer at http://127.0.0.1:${a.port}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});
