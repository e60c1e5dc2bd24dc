import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The path of the first of `names` found on PATH. A test that checks the service against an
 * outside tool (an independent reader or calculator) must not pass without it: when none is
 * there, this throws an error naming the tool and the Debian package that brings it.
 */
export function requireTool(names: readonly string[], need: { package: string; for: string }): string {
  for (const name of names) {
    for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {}
    }
  }
  throw new Error(
    `${need.for} needs ${names.join(' or ')}, which is not on PATH; install it with: apt-get install ${need.package}`,
  );
}
