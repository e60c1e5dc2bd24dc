// Exports of the assets list (docs/exports.md): the filter and search applied now, as CSV or XLSX,
// through the API's own link (`assetsExport { csvFileDownloadUrl }`), fetched from this origin
// as a stream so that what has come shows as it comes (bytes, and a CSV's rows against the list's
// count), cancellable at any point, then handed to the browser as a download.
import { type Api, ApiError, isAbort } from './api.ts';
import type { ProfileDetail } from './data.ts';
import * as documents from './documents.ts';
import { focus, h } from './dom.ts';
import {
  CsvRecordCounter,
  exportUrl,
  fileName,
  formatBytes,
  type Progress,
  progressText,
} from './export-stream.ts';
import type { AssetFilter } from './filters.ts';

/** What the list shows when an export starts. */
export interface ExportState {
  filter: AssetFilter | null;
  /** The property columns shown. */
  columns: readonly string[];
  /** The page shown, for the count of the whole list. */
  page: { totalCount: number | null; totalCountIsExact: boolean | null } | null;
  /** The saved filter applied, by name, and the search. */
  filterName: string | null;
  search: string;
}

interface ExportContext {
  api: Api;
  /** Aborted when the page is left: an export under way stops with it. */
  signal: AbortSignal;
  announce(text: string): void;
  fail(error: unknown): void;
}

/** The name a file is given (the server makes it safe): "Well – Producing wells – red". */
export function exportName(title: string, state: Pick<ExportState, 'filterName' | 'search'>): string {
  return [title, state.filterName, state.search ? `search ${state.search}` : null]
    .filter(Boolean)
    .join(' – ');
}

/** The export section of a profile's assets list; `current` says what the list shows at each start. */
export function exportPanel(
  ctx: ExportContext,
  profile: ProfileDetail,
  current: () => ExportState,
): HTMLElement {
  const every = h('input', { type: 'checkbox', id: 'export-every' });
  const csv = h('button', { type: 'button', id: 'export-csv' }, 'Export CSV');
  const xlsx = h('button', { type: 'button', id: 'export-xlsx' }, 'Export XLSX');
  const label = h('label', { for: 'export-bar', id: 'export-label' });
  const bar = h('progress', { id: 'export-bar' });
  const text = h('span', { id: 'export-text' });
  const cancel = h('button', { type: 'button', id: 'export-cancel' }, 'Cancel export');
  const progress = h('div', { class: 'export-progress', hidden: true }, label, bar, text, cancel);
  const result = h('p', { class: 'hint', id: 'export-result' });
  let running: AbortController | null = null;

  const show = (p: Progress) => {
    if (p.rows !== null && p.expected !== null && p.expected > 0) {
      bar.max = p.expected;
      bar.value = Math.min(p.rows, p.expected);
    }
    text.textContent = progressText(p);
  };

  const run = async (isExcel: boolean) => {
    if (running) return;
    const state = current();
    const controller = new AbortController();
    running = controller;
    const leave = () => controller.abort();
    ctx.signal.addEventListener('abort', leave, { once: true });
    const ext = isExcel ? 'xlsx' : 'csv';
    const name = exportName(profile.title, state);
    const expected =
      state.page?.totalCountIsExact && state.page.totalCount !== null ? state.page.totalCount : null;
    label.textContent = `Exporting ${name}.${ext}`;
    bar.removeAttribute('value');
    text.textContent = 'Asking for the link…';
    result.textContent = '';
    progress.hidden = false;
    csv.disabled = xlsx.disabled = true;
    focus(cancel);
    try {
      const file = await download(ctx.api, controller.signal, {
        profile: profile.profile,
        properties: every.checked ? null : [...state.columns],
        isExcel,
        filter: state.filter,
        name,
        expected,
        fallback: `${name}.${ext}`,
        show,
      });
      hand(file.blob, file.name);
      result.textContent =
        file.rows !== null
          ? `Exported ${file.rows} asset${file.rows === 1 ? '' : 's'} to ${file.name} (${formatBytes(file.blob.size)}).`
          : `Exported ${file.name} (${formatBytes(file.blob.size)}).`;
      ctx.announce(result.textContent);
    } catch (e) {
      if (ctx.signal.aborted) return;
      if (isAbort(e) && controller.signal.aborted) {
        result.textContent = 'Export cancelled.';
        ctx.announce(result.textContent);
      } else {
        result.textContent = 'The export failed.';
        ctx.fail(e);
      }
    } finally {
      ctx.signal.removeEventListener('abort', leave);
      running = null;
      progress.hidden = true;
      csv.disabled = xlsx.disabled = false;
      if (!ctx.signal.aborted) focus(isExcel ? xlsx : csv);
    }
  };
  csv.addEventListener('click', () => void run(false));
  xlsx.addEventListener('click', () => void run(true));
  cancel.addEventListener('click', () => running?.abort());

  return h(
    'section',
    { class: 'export', 'aria-labelledby': 'export-title' },
    h('h2', { id: 'export-title' }, 'Export'),
    h(
      'p',
      { class: 'hint' },
      'The assets the list shows, every page, with the filter and search applied: id, display name and the columns shown.',
    ),
    h(
      'div',
      { class: 'check' },
      every,
      h('label', { for: 'export-every' }, 'Every property, not only the columns shown'),
    ),
    h('div', { class: 'actions' }, csv, xlsx),
    progress,
    result,
  );
}

interface DownloadRequest {
  profile: string;
  properties: string[] | null;
  isExcel: boolean;
  filter: AssetFilter | null;
  name: string;
  expected: number | null;
  fallback: string;
  show(progress: Progress): void;
}

/** The export's link from the API, then its file read as it streams. */
async function download(
  api: Api,
  signal: AbortSignal,
  r: DownloadRequest,
): Promise<{ blob: Blob; name: string; rows: number | null }> {
  const data = await api.request<{
    assetProfiles: { byId: { assetsExport: { csvFileDownloadUrl: string | null } | null } | null } | null;
  }>(
    documents.EXPORT_LINK,
    { profile: r.profile, properties: r.properties, isExcel: r.isExcel, filter: r.filter, name: r.name },
    signal,
  );
  const link = data.assetProfiles?.byId?.assetsExport?.csvFileDownloadUrl;
  const url = link ? exportUrl(link, location.origin) : null;
  if (!url) throw new ApiError('The server gave no export link for this list.');
  let response: Response;
  try {
    response = await fetch(url, { signal, credentials: 'same-origin', cache: 'no-store' });
  } catch (e) {
    if (isAbort(e)) throw e;
    throw new ApiError('The export could not be downloaded: the server could not be reached.', 'NETWORK');
  }
  if (!response.ok || !response.body) throw new ApiError(await refusal(response), `HTTP_${response.status}`);
  const counter = r.isExcel ? null : new CsvRecordCounter();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let bytes = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
    counter?.feed(value);
    r.show({ bytes, rows: counter ? Math.max(0, counter.records() - 1) : null, expected: r.expected });
  }
  const rows = counter ? Math.max(0, counter.records(true) - 1) : null;
  r.show({ bytes, rows, expected: r.expected });
  return {
    blob: new Blob(chunks, { type: response.headers.get('content-type') ?? 'application/octet-stream' }),
    name: fileName(response.headers.get('content-disposition'), r.fallback),
    rows,
  };
}

/** What a refused download says (an RFC 9457 problem's `detail`), or its status. */
async function refusal(response: Response): Promise<string> {
  let detail: unknown;
  try {
    detail = ((await response.json()) as { detail?: unknown }).detail;
  } catch (e) {
    if (isAbort(e)) throw e;
    detail = null;
  }
  return typeof detail === 'string'
    ? `The export failed: ${detail}`
    : `The export failed (HTTP ${response.status}).`;
}

/** Hands `blob` to the browser as the download of a file named `name`. */
function hand(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has the file once the click is handled; the URL goes after a while.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
