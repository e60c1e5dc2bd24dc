// The console's entry point (bundled by src/console/build.ts): reads where the API is from the
// page, and starts the app in its root element.
import { Api } from './api.ts';
import { ConsoleApp } from './app.ts';
import type { DeviceKeys } from './auth.ts';
import { browserPreferences, type Preferences } from './columns.ts';

const DEVICE_KEY = 'assetql.console.v1.device';

function meta(name: string): string {
  const content = document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content;
  if (!content) throw new Error(`the console page has no ${name}`);
  return content;
}

/** The browser's storage, or none where it is refused (then nothing is remembered). */
function preferences(): Preferences {
  try {
    return browserPreferences(window.localStorage);
  } catch (e) {
    if (!(e instanceof DOMException)) throw e;
    return { read: () => null, write: () => undefined };
  }
}

const prefs = preferences();
const devices: DeviceKeys = {
  read: () => prefs.read(DEVICE_KEY),
  write: (key) => prefs.write(DEVICE_KEY, key),
};
const root = document.getElementById('app');
if (!root) throw new Error('the console page has no #app');
void new ConsoleApp({
  root,
  api: new Api(meta('assetql-graphql')),
  preferences: prefs,
  devices,
  base: meta('assetql-console'),
}).start();
