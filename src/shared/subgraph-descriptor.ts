/**
 * A path a subgraph serves beside GraphQL that clients reach through the gateway, e.g. export
 * downloads: requests under `public` are forwarded as they are to `path` at the subgraph.
 */
export interface SubgraphRoute {
  /** The prefix under the service's public base URL, e.g. `/api/exports/`. */
  readonly public: string;
  /** The same prefix at the subgraph, e.g. `/exports/`. */
  readonly path: string;
  /** What the route serves, as a client reads it when the subgraph cannot be reached ("Exports"). */
  readonly title: string;
}

/**
 * What a subgraph declares to whoever serves it beside its schema: static data, so a gateway
 * process reads it without building (or importing) the subgraph.
 */
export interface SubgraphDescriptor {
  readonly name: string;
  /** HTTP routes the gateway forwards to this subgraph @default none */
  readonly routes?: readonly SubgraphRoute[];
  /**
   * The subgraph may start or end the caller's session: the session cookie and `x-svc-sessionid`
   * on its answers are relayed to the client @default false
   */
  readonly mayChangeSession?: boolean;
}
