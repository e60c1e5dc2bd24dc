import type { Kysely } from 'kysely';
import type { WebhookSettings } from '../../config/limits.ts';
import type { Tables } from '../../storage/tables.ts';
import type { BaseContext } from '../../subgraph-server/index.ts';
import type { ChangeFeed } from './feed.ts';

export interface EventsContext extends BaseContext {
  db: Kysely<Tables>;
  /** The live streams of the log served by this process (feed.ts). */
  feed: ChangeFeed;
  webhooks: {
    settings: WebhookSettings;
    /** The key webhook secrets are sealed with (derived from ASSETQL_SECRET). */
    key: Uint8Array;
    /** Tells the dispatcher to look at once (a webhook enabled, a delivery to send again). */
    wake(): void;
  };
}
