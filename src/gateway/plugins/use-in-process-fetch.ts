import type { Plugin } from '../http.ts';

/** A subgraph reachable without a network hop: its Yoga instance's fetch handler. */
export type InProcessFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Response | Promise<Response>;

/**
 * Single-process form: a planned operation's subgraph requests call the handlers of the subgraphs
 * in this process, found by URL origin, instead of the network.
 */
export function useInProcessFetch(inProcess: ReadonlyMap<string, InProcessFetch>): Plugin {
  return {
    onFetch({ url, setFetchFn }) {
      const local = inProcess.get(new URL(url).origin);
      // The subgraph's server adapter builds its own light request from (url, init): an
      // undici Request here cost more than the call (signal listeners, header copies).
      if (local) setFetchFn((input, init) => Promise.resolve(local(input as string, init as RequestInit)));
    },
  };
}
