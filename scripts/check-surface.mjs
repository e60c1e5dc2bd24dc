#!/usr/bin/env node
// Compares a running GraphQL endpoint with the surface the spec names
// (test/fixtures/spec/surface.txt, one check a line; its header says how to read a line).
// Usage: node scripts/check-surface.mjs [URL] [--header 'name: value'] [--surface file]
// Prints one line per check that fails and a closing count; exits 1 when any fails, 2 when the
// endpoint gives no introspection result. Plain JavaScript, so that it runs against any server
// with nothing of the project loaded.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const url = args.find((a) => a.startsWith('http')) ?? 'http://localhost:4000/api/graphql';
const headers = { 'content-type': 'application/json' };
let surfaceFile = new URL('../test/fixtures/spec/surface.txt', import.meta.url);
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--header') {
    const [k, ...v] = (args[++i] ?? '').split(':');
    headers[k.trim().toLowerCase()] = v.join(':').trim();
  } else if (args[i] === '--surface') {
    surfaceFile = args[++i];
  }
}

const typeRef =
  'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } }';
const query = `{ __schema { types { kind name
  fields(includeDeprecated: true) { name type { ${typeRef} } args { name type { ${typeRef} } } }
  inputFields { name type { ${typeRef} } }
  enumValues(includeDeprecated: true) { name }
  possibleTypes { name } } } }`;

let body;
try {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query }) });
  body = await res.json();
} catch (e) {
  console.log(`cannot introspect ${url}: ${e.message}`);
  process.exit(2);
}
if (!body?.data?.__schema) {
  console.log(`no introspection result from ${url}: ${JSON.stringify(body?.errors ?? body).slice(0, 300)}`);
  process.exit(2);
}
const types = new Map(body.data.__schema.types.map((t) => [t.name, t]));
const print = (t) =>
  t.kind === 'NON_NULL' ? `${print(t.ofType)}!` : t.kind === 'LIST' ? `[${print(t.ofType)}]` : t.name;
const named = (t) => (t.ofType ? named(t.ofType) : t.name);
const norm = (s) => s.replace(/\s+/g, '');
const lacking = (want, have) => want.split(/\s+/).filter((v) => !have.has(v));

function field(typeName, name) {
  const t = types.get(typeName);
  if (!t) return [null, `type ${typeName} is missing`];
  const f = (t.fields ?? t.inputFields ?? []).find((x) => x.name === name);
  return f ? [f, null] : [null, `${typeName}.${name} is missing`];
}

/** Each form of line, tried in order: a pattern and what it checks (a reason, or null when it holds). */
const FORMS = [
  [
    /^enum (\w+): (.+)$/,
    ([, name, values]) => {
      const t = types.get(name);
      if (!t) return `enum ${name} is missing`;
      const lack = lacking(values, new Set((t.enumValues ?? []).map((v) => v.name)));
      return lack.length ? `enum ${name} lacks ${lack.join(', ')}` : null;
    },
  ],
  [
    /^input (\w+): (.+)$/,
    ([, name, fields]) => {
      const t = types.get(name);
      if (t?.kind !== 'INPUT_OBJECT') return `input ${name} is missing`;
      const lack = lacking(fields, new Set(t.inputFields.map((f) => f.name)));
      return lack.length ? `input ${name} lacks ${lack.join(', ')}` : null;
    },
  ],
  [
    /^union (\w+) = (.+)$/,
    ([, name, members]) => {
      const t = types.get(name);
      if (t?.kind !== 'UNION') return `union ${name} is missing`;
      const want = members
        .split('|')
        .map((s) => s.trim())
        .sort()
        .join(' | ');
      const have = t.possibleTypes
        .map((p) => p.name)
        .sort()
        .join(' | ');
      return want === have ? null : `union ${name} is ${have}, not ${want}`;
    },
  ],
  [
    /^values (\w+)\.(\w+): (.+)$/,
    ([, typeName, fieldName, values]) => {
      const [f, err] = field(typeName, fieldName);
      if (err) return err;
      const t = types.get(named(f.type));
      if (t.kind !== 'ENUM') return null;
      const lack = lacking(values, new Set(t.enumValues.map((v) => v.name)));
      return lack.length ? `${typeName}.${fieldName} (${t.name}) lacks ${lack.join(', ')}` : null;
    },
  ],
  [
    /^(\w+)\.(\w+)\s*>\s*(.+)$/,
    ([, typeName, fieldName, path]) => {
      const steps = path.split('>').map((s) => s.trim());
      let [f, err] = field(typeName, fieldName);
      if (err) return err;
      let at = `${typeName}.${fieldName}`;
      for (let i = 0; i < steps.length; i++) {
        const tn = named(f.type);
        const names = steps[i].split(/\s+/);
        if (i < steps.length - 1) {
          [f, err] = field(tn, names[0]);
          if (err) return `${at} -> ${err}`;
          at += ` > ${names[0]}`;
        } else {
          const lack = names.filter((n) => field(tn, n)[1]);
          if (lack.length) return `${at} (${tn}) lacks ${lack.join(', ')}`;
        }
      }
      return null;
    },
  ],
  [
    /^(\w+)\.(\w+)(?:\((.*)\))?(?::\s*(.+))?$/,
    ([, typeName, fieldName, argList, type]) => {
      const [f, err] = field(typeName, fieldName);
      if (err) return err;
      if (type && norm(print(f.type)) !== norm(type))
        return `${typeName}.${fieldName} is ${print(f.type)}, not ${type}`;
      for (const a of (argList ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const [an, at] = a.split(':').map((s) => s.trim());
        const arg = (f.args ?? []).find((x) => x.name === an);
        if (!arg) return `${typeName}.${fieldName} takes no argument ${an}`;
        if (at && norm(print(arg.type)) !== norm(at))
          return `${typeName}.${fieldName}(${an}:) is ${print(arg.type)}, not ${at}`;
      }
      return null;
    },
  ],
];

function check(line) {
  for (const [pattern, holds] of FORMS) {
    const m = line.match(pattern);
    if (m) return holds(m);
  }
  return `cannot read check: ${line}`;
}

const lines = readFileSync(surfaceFile, 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
let failed = 0;
for (const line of lines) {
  const why = check(line);
  if (why) {
    failed++;
    console.log(`falls short: ${why}`);
  }
}
console.log(`${lines.length - failed} of ${lines.length} surface checks hold`);
process.exit(failed ? 1 : 0);
