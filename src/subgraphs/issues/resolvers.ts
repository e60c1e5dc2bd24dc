import type { CreateIssueInput, IssueStatus, Resolvers } from '../../__generated__/issues.ts';
import { decodeCursor, forwardConnection, pageSize } from '../../shared/cursors.ts';
import { unauthenticated } from '../../shared/errors.ts';
import { isAuthenticated } from '../../shared/identity.ts';
import { fail, mutationResult, ok, type Result } from '../../shared/result.ts';
import type { IssuesContext } from './context.ts';
import type { IssueErrorType } from './error-codes.ts';
import { type IssueRow, insertIssue, listIssues } from './issues.repository.ts';

const DEFAULT_PAGE = 20;
const MAX_PAGE = 500;
const MAX_NAME = 500;
const MAX_DESCRIPTION = 20_000;

function tenant(ctx: IssuesContext) {
  if (!isAuthenticated(ctx.identity)) throw unauthenticated();
  return ctx.identity;
}

function page(first: number | null | undefined, after: string | null | undefined) {
  const limit = pageSize(first, DEFAULT_PAGE, MAX_PAGE);
  const beforeSeq = after ? Number(decodeCursor(after, 1)[0]) : undefined;
  return { limit, beforeSeq };
}

const seqKey = (r: IssueRow) => [r.seq];

export const resolvers: Resolvers = {
  Query: {
    issues: (_root, _args, ctx) => {
      tenant(ctx);
      return {};
    },
  },
  Issues: {
    all: async (_root, { first, after }, ctx) => {
      const { userGroup } = tenant(ctx);
      const p = page(first, after);
      return forwardConnection(await listIssues(ctx.db, userGroup, p), p.limit, seqKey, after != null);
    },
    byId: (_root, { id }, ctx) => {
      tenant(ctx);
      return ctx.loaders.byId.load(id);
    },
  },
  Issue: {
    __resolveReference: (ref, ctx) => {
      if (!isAuthenticated(ctx.identity)) return null;
      return ctx.loaders.byId.load(ref.id);
    },
    displayName: (r) => r.display_name,
    status: (r) => r.status as IssueStatus,
    createdAt: (r) => r.created_at,
    audit: (r) => ({ createdAt: r.created_at, createdBy: { userId: r.created_by } }),
    subject: (r) =>
      r.subject_type !== null && r.subject_reference !== null
        ? { type: r.subject_type, reference: r.subject_reference }
        : null,
  },
  IssueSubject: {
    __resolveReference: (ref) => ref,
    issues: async (subject, { first, after }, ctx) => {
      tenant(ctx);
      const p = page(first, after);
      const rows = await ctx.loaders.bySubject.load({
        type: subject.type,
        reference: subject.reference,
        ...p,
      });
      return forwardConnection(rows, p.limit, seqKey, after != null);
    },
  },
  Mutation: {
    createIssue: async (_root, { input, correlationId }, ctx) =>
      mutationResult(correlationId ?? ctx.requestId, await createIssue(ctx, input), (issue) => ({ issue }), {
        issue: null,
      }),
  },
};

async function createIssue(
  ctx: IssuesContext,
  input: CreateIssueInput,
): Promise<Result<IssueRow, IssueErrorType>> {
  if (!isAuthenticated(ctx.identity)) return fail('UNAUTHENTICATED', 'Sign in to create issues.');
  const name = input.displayName.trim();
  if (name.length === 0 || name.length > MAX_NAME)
    return fail('INVALID_INPUT', `displayName must have 1 to ${MAX_NAME} characters.`);
  if ((input.description?.length ?? 0) > MAX_DESCRIPTION)
    return fail('INVALID_INPUT', `description may have at most ${MAX_DESCRIPTION} characters.`);
  const subject = input.subject;
  if (subject && (subject.type.trim() === '' || subject.reference.trim() === ''))
    return fail('INVALID_INPUT', 'subject needs a type and a reference.');
  return ok(
    await insertIssue(ctx.db, {
      user_group: ctx.identity.userGroup,
      id: crypto.randomUUID(),
      display_name: name,
      description: input.description ?? null,
      status: input.status ?? 'OPEN',
      subject_type: subject?.type ?? null,
      subject_reference: subject?.reference ?? null,
      created_at: ctx.clock.now(),
      created_by: ctx.identity.username,
    }),
  );
}
