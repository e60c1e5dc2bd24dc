import { type Kysely, sql } from 'kysely';

// The trusted documents of this deployment (docs/security.md#trusted-documents): the operations
// its own clients send, applied from a persisted query manifest by `assetql documents apply`, read
// by the gateway at start. `id` is the manifest's, `sha256` the hex SHA-256 of `body` (what a
// `documentId` of `sha256:` and Apollo's `persistedQuery.sha256Hash` name). Not a tenant's table:
// the documents are the service's, the same for every group.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table trusted_documents (
      id text primary key check (length(id) between 1 and 256),
      sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
      name text,
      type text not null check (type in ('query', 'mutation', 'subscription')),
      body text not null,
      applied_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index trusted_documents_sha256 on trusted_documents (sha256)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table trusted_documents`.execute(db);
}
