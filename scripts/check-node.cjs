// The first step of `npm install` (prepare), `npm start` (prestart), `npm run build`, `npm test`
// and `npm run bench`: everything after it runs TypeScript by Node's type stripping, which an
// older Node refuses with ERR_UNKNOWN_FILE_EXTENSION and no word of the version. This names the
// version instead, in one line, and exits 1.
//
// CommonJS without syntax newer than Node 6 (no optional chaining, no ES modules), so that any
// Node old enough to fail here can read it. The minimum is package.json's `engines.node`, so
// the two cannot drift apart.
'use strict';

const engines = require('../package.json').engines;
// biome-ignore lint/complexity/useOptionalChain: syntax an old Node can parse
const wanted = /(\d+)\.(\d+)/.exec((engines && engines.node) || '');
if (!wanted) {
  process.stderr.write('assetql: package.json engines.node names no minimum version\n');
  process.exit(1);
}
const minimum = [Number(wanted[1]), Number(wanted[2])];
const found = process.versions.node;
const parts = found.split('.').map(Number);
const recentEnough = parts[0] > minimum[0] || (parts[0] === minimum[0] && parts[1] >= minimum[1]);
const install = 'install a current LTS release from https://nodejs.org/ or with your version manager';

if (!recentEnough) {
  process.stderr.write(`assetql needs Node.js ${minimum.join('.')} or later (found ${found}); ${install}\n`);
  process.exit(1);
}
// A recent enough Node with type stripping turned off (--no-strip-types in NODE_OPTIONS, or a
// 23.x before 23.6, where it was still behind a flag) fails the same way.
// biome-ignore lint/complexity/useOptionalChain: syntax an old Node can parse
if (!process.features || !process.features.typescript) {
  process.stderr.write(
    `assetql needs Node.js type stripping, which this Node.js ${found} does not have turned on ` +
      `(check NODE_OPTIONS for --no-strip-types); ${install}\n`,
  );
  process.exit(1);
}
