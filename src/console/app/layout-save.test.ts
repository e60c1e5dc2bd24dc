import { describe, expect, it } from 'vitest';
import { Api, SessionEndedError } from './api.ts';
import { describeChanges } from './layout-conflict.ts';
import { draftsOf, sameWidgets, saveLayout } from './layout-save.ts';
import type { ViewConfiguration, Widget } from './view-data.ts';

const widget = (id: string, x: number, y = 0): Widget => ({
  id,
  name: id.toUpperCase(),
  widget: 'properties',
  settings: { properties: ['name'] },
  layout: { x, y, w: 4, h: 2 },
});
const base = [widget('a', 0), widget('b', 4)];
const mine = [widget('a', 0), widget('b', 8)];
const view = (version: number, web: Widget[], mobile: Widget[] = []): ViewConfiguration => ({
  id: 'ops',
  name: 'Ops',
  version,
  map: null,
  layouts: [
    { mediaType: 'WEB', widgets: web },
    { mediaType: 'MOBILE', widgets: mobile },
  ],
});

/** An Api whose server gives `answers` in turn; what was sent is kept. */
function server(...answers: unknown[]) {
  const sent: { query: string; variables: Record<string, any> }[] = [];
  const api = new Api('/api/graphql', async (_url, init) => {
    sent.push(JSON.parse(String(init!.body)));
    return new Response(JSON.stringify({ data: answers.shift() }), { status: 200 });
  });
  return { api, sent };
}

const saved = (v: ViewConfiguration) => ({
  updateAssetProfileViewLayout: { errors: [], viewConfiguration: v },
});
const refused = (type: string, message = `refused: ${type}`) => ({
  updateAssetProfileViewLayout: { errors: [{ type, message }], viewConfiguration: null },
});
const current = (v: ViewConfiguration | null) => ({ assetProfiles: { byId: { viewConfiguration: v } } });
const request = { profile: 'well', view: 'ops', media: 'WEB' as const, widgets: mine, base, version: 3 };

describe('saving a layout', () => {
  it('sends the widgets whole, at the version they were read', async () => {
    const { api, sent } = server(saved(view(4, mine)));
    expect(await saveLayout(api, request)).toEqual({ kind: 'saved', view: view(4, mine) });
    expect(sent[0]!.variables.input).toEqual({
      profile: 'well',
      viewConfiguration: 'ops',
      mediaType: 'WEB',
      widgets: mine,
      ifVersion: 3,
    });
  });

  it('saves again over a change to another part of the view, this layout untouched', async () => {
    const { api, sent } = server(
      refused('VERSION_CONFLICT'),
      current(view(5, base, [widget('m', 0)])),
      saved(view(6, mine)),
    );
    expect(await saveLayout(api, request)).toMatchObject({ kind: 'saved' });
    expect(sent.map((s) => s.variables.input?.ifVersion)).toEqual([3, undefined, 5]);
  });

  it('gives a conflict when this layout changed, with the view as it is now', async () => {
    const theirs = [widget('a', 0, 3), widget('b', 4)];
    const { api } = server(refused('VERSION_CONFLICT'), current(view(4, theirs)));
    expect(await saveLayout(api, request)).toEqual({ kind: 'conflict', current: view(4, theirs), theirs });
    expect(describeChanges(base, theirs)).toBe('A moved.');
    expect(describeChanges(base, null)).toBe('they removed this layout.');
    // A change of names or settings only, places as they were.
    const renamed = [{ ...widget('a', 0), name: 'Renamed' }, widget('b', 4)];
    expect(sameWidgets(renamed, base)).toBe(false);
    expect(describeChanges(base, renamed)).toBe('the widgets’ names or settings.');
  });

  it('gives up trying again after a few changes elsewhere, as a conflict', async () => {
    const answers = [refused('VERSION_CONFLICT'), current(view(5, base))];
    const { api, sent } = server(...answers, ...answers, ...answers, ...answers);
    expect(await saveLayout(api, request, undefined, 3)).toMatchObject({ kind: 'conflict' });
    expect(sent.filter((s) => s.variables.input).length).toBe(4);
  });

  it('says what the API refused, and when the view is gone', async () => {
    const { api } = server(refused('INVALID_LAYOUT', 'widgets[0].layout: x + w may be at most 12.'));
    expect(await saveLayout(api, request)).toEqual({
      kind: 'refused',
      message: 'widgets[0].layout: x + w may be at most 12.',
    });
    const gone = server(refused('VERSION_CONFLICT'), current(null));
    expect(await saveLayout(gone.api, request)).toEqual({
      kind: 'refused',
      message: 'This view no longer exists: someone deleted it.',
    });
    await expect(saveLayout(server(refused('UNAUTHENTICATED')).api, request)).rejects.toBeInstanceOf(
      SessionEndedError,
    );
  });

  it('keeps unsaved layouts for one user and group at a time', () => {
    const drafts = draftsOf({ username: 'ann', userGroup: 'demo', userGroups: ['demo'] });
    drafts.set('k', mine);
    expect(draftsOf({ username: 'ann', userGroup: 'demo', userGroups: ['demo'] }).get('k')).toBe(mine);
    expect(draftsOf({ username: 'bob', userGroup: 'demo', userGroups: ['demo'] }).size).toBe(0);
    expect(draftsOf({ username: 'ann', userGroup: 'demo', userGroups: ['demo'] }).size).toBe(0);
  });
});
