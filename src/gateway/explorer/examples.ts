import type { TrustedDocument } from '../../execution/trusted-documents.ts';

/**
 * The operations the explorer opens with: each works on the demo tenant as it is loaded
 * (src/demo/), once the first has signed in, and test/integration/explorer-examples.test.ts
 * runs every one of them there.
 */
export interface ExplorerExample {
  /** The operation's name, as written in its document. */
  name: string;
  /** What it shows, in a sentence. */
  description: string;
  query: string;
  variables?: Record<string, unknown>;
}

export const EXAMPLES: readonly ExplorerExample[] = [
  {
    name: 'SignIn',
    description: 'Signs in as the demo user; the explorer keeps the session cookie for what follows.',
    query: `mutation SignIn {
  signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) {
    errors { type message }
    session { authenticated username userGroup expiresAt expiresAtHard }
  }
}`,
  },
  {
    name: 'WellsPage',
    description: 'A page of wells with a few of their properties, and how many there are.',
    query: `query WellsPage($after: String) {
  assets(profile: "well") {
    all(first: 10, after: $after) {
      totalCount
      edges { node { id displayName properties(only: ["status", "depth", "operator"]) } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`,
  },
  {
    name: 'EquipmentNeedingAttention',
    description:
      'A saved filter (equipment in maintenance or failed) with each unit’s sensors and their latest readings.',
    query: `query EquipmentNeedingAttention {
  assetFilter(id: "equipment-attention") {
    displayName
    assets(first: 20) {
      edges {
        node {
          displayName
          properties(only: ["status"])
          related(relationship: "sensors") {
            ... on AssetRelationshipMany { assets { displayName properties(only: ["measurement", "unit"]) observation } }
          }
        }
      }
    }
  }
}`,
  },
  {
    name: 'WellIssues',
    description: 'A well with the issues raised about it (the issues subgraph, joined by the gateway).',
    query: `query WellIssues {
  assets(profile: "well") {
    byId(id: "W-100-1-1") {
      displayName
      issueSubject { issues(first: 5) { edges { node { id displayName status createdAt } } } }
    }
  }
}`,
  },
  {
    name: 'ExportWells',
    description: 'A signed link that streams the producing wells as CSV (open it in the browser).',
    query: `query ExportWells {
  assetProfiles {
    byId(profile: "well") {
      assetsExport(properties: ["name", "status", "depth"], filter: { property: { name: "status", equals: "producing" } }) {
        csvFileDownloadUrl(exportName: "producing-wells")
      }
    }
  }
}`,
  },
  {
    name: 'CreateFilterWithAnError',
    description:
      'A mutation’s own errors: a filter on a property the profile does not have is refused in `errors`, and nothing is saved.',
    query: `mutation CreateFilterWithAnError {
  createAssetFilter(input: {
    id: "deep-wells"
    displayName: "Deep wells"
    profile: "well"
    filter: { property: { name: "depthInFeet", gt: 9000 } }
    subProfiles: []
  }) {
    errors { type message }
    assetFilter { id }
  }
}`,
  },
];

/**
 * Every example in one document, as the explorer's first tab shows them: each described by a
 * comment inside it, so that the document opens with the cursor in the first operation (the
 * explorer runs the operation the cursor is in).
 */
export function examplesDocument(): string {
  const described = (e: ExplorerExample) => {
    const open = e.query.indexOf('\n');
    return `${e.query.slice(0, open)}\n  # ${e.description}${e.query.slice(open)}`;
  };
  return `${EXAMPLES.map(described).join('\n\n')}\n`;
}

/**
 * The examples as trusted documents the service ships (docs/security.md#trusted-documents): the
 * document the explorer opens on and each example on its own, as its collection sends them, so
 * that with `ASSETQL_TRUSTED_DOCUMENTS=require` a visitor can still sign in from the explorer,
 * after which the session's explorer right runs anything.
 */
export function explorerDocuments(): TrustedDocument[] {
  return [
    { id: 'x-assetql:explorer-examples', name: null, type: 'query' as const, body: examplesDocument() },
    ...EXAMPLES.map((e) => ({
      id: `x-assetql:explorer-${e.name}`,
      name: e.name,
      type: e.query.trimStart().startsWith('mutation') ? ('mutation' as const) : ('query' as const),
      body: e.query,
    })),
  ];
}
