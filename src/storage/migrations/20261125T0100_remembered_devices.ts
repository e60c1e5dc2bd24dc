import { type Kysely, sql } from 'kysely';

// Remembered devices (docs/auth.md §7): a device that completed an MFA sign-in may skip MFA at its
// next sign-ins by presenting a secret only its client holds. The secret is kept as its SHA-256
// (256 random bits need no slow hash), with when it was given, for the maximum age. The check
// keeps the three columns in step: a device is remembered exactly when it has a secret and a time;
// the devices already stored have neither and stay not remembered.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table devices add column secret_hash bytea`.execute(db);
  await sql`alter table devices add column remembered_at timestamptz`.execute(db);
  await sql`
    alter table devices add constraint devices_remembered_has_secret check (
      (remembered and secret_hash is not null and remembered_at is not null)
      or (not remembered and secret_hash is null and remembered_at is null))`.execute(db);
}
