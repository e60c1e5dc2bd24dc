/**
 * Every `type` an issues mutation error can have. It must list exactly the values of
 * `enum IssueErrorType` in schema.graphql (a test checks).
 */
export const ISSUE_ERROR_TYPES = ['INVALID_INPUT', 'UNAUTHENTICATED'] as const;

export type IssueErrorType = (typeof ISSUE_ERROR_TYPES)[number];
