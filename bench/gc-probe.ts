// `node --trace-gc-nvp bench/gc-probe.ts <database url> <ours|pg> <statements>`: runs a page
// statement (100 rows with a jsonb column) that many times, one after another, through the
// database layer the service uses (`ours`, src/storage/database.ts) or through Kysely over pg's
// own pool and client (`pg`), and prints `PROBE-START <ms>` and `PROBE <statements> <ms>` around
// the counted part. bench/gc.ts reads V8's collection trace from its output.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/storage/database.ts';

const [url, client, count] = process.argv.slice(2);
if (!url || (client !== 'ours' && client !== 'pg')) {
  process.stderr.write(
    'usage: node --trace-gc-nvp bench/gc-probe.ts <database url> <ours|pg> <statements>\n',
  );
  process.exit(2);
}
const statements = Number(count) || 2000;
let db: Kysely<any>;
let close: () => Promise<void>;
if (client === 'ours') {
  const database = await openDatabase({ url });
  db = database.db;
  close = () => database.close();
} else {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  close = () => db.destroy();
}
const page = () =>
  sql`select id, properties from gc_probe where grp = ${'bench'} order by id limit 100`.execute(db);
// Warm-up: compiled code and prepared statements settle before the counted part.
for (let i = 0; i < 200; i++) await page();
// Marked with the time since the process started, which V8's trace lines carry too: its lines
// go through the C library's buffer and may reach the pipe after a mark written later.
process.stdout.write(`PROBE-START ${performance.now()}\n`);
for (let i = 0; i < statements; i++) {
  const { rows } = await page();
  if (rows.length !== 100) throw new Error(`expected 100 rows, got ${rows.length}`);
}
process.stdout.write(`PROBE ${statements} ${performance.now()}\n`);
await close();
