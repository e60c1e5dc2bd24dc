/**
 * Statements that reach tenant tables across groups on purpose, by the parser's fingerprint
 * (the same for any values of their parameters and literals; test/helpers/tenant-scope.ts), each
 * with where it is sent from and why. Each is background work of the whole deployment, not a
 * request of one group: a sharded deployment runs it on every shard (Citus fans such a
 * statement out), which is correct for it, and it runs seldom or finds which groups to work on,
 * then works group by group. A statement serving a request never belongs here: give it its
 * `user_group` instead.
 */
export const CROSS_GROUP_STATEMENTS: ReadonlyMap<string, string> = new Map([
  [
    '023ffa8fad4f9679',
    'events/webhooks/repository.ts anyWebhook: the webhook dispatcher asks whether any group has an enabled webhook before it reads any log',
  ],
  [
    'ede9a708436def94',
    'events/webhooks/repository.ts groupsWithWebhooks: the webhook dispatcher lists the groups whose logs it then reads one group at a time',
  ],
  [
    '01d013232a326d25',
    'events/webhooks/repository.ts nextDue: the webhook dispatcher sleeps until the earliest pending delivery of any group',
  ],
  [
    '468c4b51ad6e430d',
    'events/webhooks/repository.ts claimDue: the webhook dispatcher takes the due deliveries of all groups, a bounded number per group',
  ],
  [
    '4972859394ea2cf1',
    'events/webhooks/repository.ts: the retention job deletes delivery records older than the retention period, of every group',
  ],
  [
    '8272de5647f2d4d6',
    'events/changes.repository.ts pruneChanges: the retention job deletes change-log entries older than the retention period, of every group, and moves each group’s horizon',
  ],
  [
    'fd404a4e9c536acc',
    'events/changes.repository.ts groupsInLog: the NATS change relay lists the groups with log entries (at start, or when told all may have changed), then reads each group’s tail',
  ],
  [
    'c8727959b0993f07',
    'assets/telemetry/retention.ts pruneObservations: the readings retention job reads every group’s own retention to find the months no group keeps',
  ],
]);
