import { type Kysely, sql } from 'kysely';

// Links an identity provider's subject to a local user: (issuer, sub) is stable, email is not.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table federated_identities (
      issuer text not null,
      subject text not null,
      username text not null references users on delete cascade on update cascade,
      created_at timestamptz not null default now(),
      last_signed_in_at timestamptz,
      primary key (issuer, subject)
    )`.execute(db);
  await sql`create index federated_identities_by_user on federated_identities (username)`.execute(db);
}
