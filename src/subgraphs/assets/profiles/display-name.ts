/**
 * Display-name templates: text with `{...}` placeholders. A placeholder lists property names
 * separated by `|`, tried in order until one has a non-empty value; `id` is the asset id,
 * and a quoted alternative (`{serial|"unnamed"}`) is a literal fallback. `{{` and `}}` are
 * literal braces.
 */
import { LRUCache } from 'lru-cache';

export type TemplatePart =
  | { text: string }
  | { alternatives: ({ property: string } | { literal: string })[] };

export class TemplateError extends Error {
  override name = 'TemplateError';
}

export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '{' && template[i + 1] === '{') {
      text += '{';
      i++;
    } else if (c === '}' && template[i + 1] === '}') {
      text += '}';
      i++;
    } else if (c === '{') {
      const end = template.indexOf('}', i);
      if (end < 0) throw new TemplateError(`unclosed "{" at ${i + 1}`);
      const body = template.slice(i + 1, end).trim();
      if (body === '') throw new TemplateError(`empty placeholder at ${i + 1}`);
      if (text) parts.push({ text });
      text = '';
      parts.push({
        alternatives: body.split('|').map((alt) => {
          const a = alt.trim();
          const quoted = /^"(.*)"$/.exec(a);
          if (quoted) return { literal: quoted[1]! };
          if (!/^[A-Za-z_][\w.-]*$/.test(a)) throw new TemplateError(`"${a}" is not a property name`);
          return { property: a };
        }),
      });
      i = end;
    } else if (c === '}') {
      throw new TemplateError(`unmatched "}" at ${i + 1}`);
    } else {
      text += c;
    }
  }
  if (text) parts.push({ text });
  return parts;
}

/** Property names a template refers to (for validation against the profile). */
export function templateProperties(parts: readonly TemplatePart[]): string[] {
  return parts.flatMap((p) =>
    'alternatives' in p ? p.alternatives.flatMap((a) => ('property' in a ? [a.property] : [])) : [],
  );
}

/** Parsed templates, by text: a tenant's profiles have a few; the bound is against churn. */
const cache = new LRUCache<string, TemplatePart[]>({ max: 1000 });

export function renderTemplate(template: string, id: string, properties: Record<string, unknown>): string {
  let parts = cache.get(template);
  if (!parts) {
    parts = parseTemplate(template);
    cache.set(template, parts);
  }
  let out = '';
  for (const part of parts) {
    if ('text' in part) {
      out += part.text;
      continue;
    }
    for (const alt of part.alternatives) {
      const v = 'literal' in alt ? alt.literal : alt.property === 'id' ? id : properties[alt.property];
      if (v !== undefined && v !== null && v !== '') {
        out += typeof v === 'object' ? JSON.stringify(v) : String(v);
        break;
      }
    }
  }
  return out;
}

/** The display name: the template, else the display-name property, else the id. */
export function displayNameOf(
  doc: { displayNameTemplate?: string | null; displayNameProperty: string },
  id: string,
  properties: Record<string, unknown>,
): string {
  const name = doc.displayNameTemplate
    ? renderTemplate(doc.displayNameTemplate, id, properties)
    : stringOf(properties[doc.displayNameProperty]);
  return name.trim() === '' ? id : name;
}

function stringOf(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
