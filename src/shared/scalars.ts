import { DateTimeResolver, JSONObjectResolver, JSONResolver } from 'graphql-scalars';

/**
 * The specification's scalars as they parse and serialise wherever a schema declares them: in a
 * subgraph's executable schema, and in the schema the gateway coerces a request's variables to
 * (so that a `JSONObject` given a list is refused at the gateway as its subgraph would refuse it).
 */
export const SPEC_SCALARS = {
  DateTime: DateTimeResolver,
  JSONObject: JSONObjectResolver,
  JSON: JSONResolver,
} as const;
