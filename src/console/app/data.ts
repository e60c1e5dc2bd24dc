// What the console reads more than once while signed in to one group: the profiles, a profile's
// definitions, the saved filters. Kept until the group changes, the session ends, or the console
// itself changes them (a filter saved); an answer that failed is asked again next time.
import type { Api } from './api.ts';
import * as documents from './documents.ts';
import type { SavedFilter } from './filters.ts';
import type { PropertyDefinition } from './format.ts';

export interface ProfileSummary {
  profile: string;
  title: string;
  properties: { name: string }[] | null;
}

export interface ProfileDetail {
  profile: string;
  title: string;
  displayNameProperty: string;
  secondaryDisplayNameProperty: string | null;
  properties: PropertyDefinition[];
}

export class DataCache {
  readonly #api: Api;
  #profiles: Promise<ProfileSummary[]> | undefined;
  #profile = new Map<string, Promise<ProfileDetail | null>>();
  #filters: Promise<SavedFilter[]> | undefined;

  constructor(api: Api) {
    this.#api = api;
  }

  /** The group's profiles, by id. */
  profiles(): Promise<ProfileSummary[]> {
    this.#profiles ??= this.#keep(
      this.#api
        .request<{ assetProfiles: { all: { edges: { node: ProfileSummary }[] } } | null }>(documents.PROFILES)
        .then((d) => d.assetProfiles?.all.edges.map((e) => e.node) ?? []),
      () => {
        this.#profiles = undefined;
      },
    );
    return this.#profiles;
  }

  /** One profile with its property definitions, or null when the group has no such profile. */
  profile(profile: string): Promise<ProfileDetail | null> {
    let found = this.#profile.get(profile);
    if (!found) {
      found = this.#keep(
        this.#api
          .request<{
            assetProfiles: {
              byId: (Omit<ProfileDetail, 'properties'> & { properties: PropertyDefinition[] | null }) | null;
            } | null;
          }>(documents.PROFILE, { profile })
          .then((d) => {
            const p = d.assetProfiles?.byId;
            return p ? { ...p, properties: p.properties ?? [] } : null;
          }),
        () => this.#profile.delete(profile),
      );
      this.#profile.set(profile, found);
    }
    return found;
  }

  /** The group's saved selection filters, by id. */
  filters(): Promise<SavedFilter[]> {
    this.#filters ??= this.#keep(
      this.#api
        .request<{ assetFilters: SavedFilter[] | null }>(documents.FILTERS)
        .then((d) => d.assetFilters ?? []),
      () => {
        this.#filters = undefined;
      },
    );
    return this.#filters;
  }

  /** After a filter is saved: the list is read again. */
  forgetFilters(): void {
    this.#filters = undefined;
  }

  /** After a group switch or the end of the session: nothing is kept. */
  clear(): void {
    this.#profiles = undefined;
    this.#profile.clear();
    this.#filters = undefined;
  }

  /** `answer`, forgotten (by `forget`) if it fails, so that the next call asks again. */
  #keep<T>(answer: Promise<T>, forget: () => void): Promise<T> {
    void answer.catch(forget);
    return answer;
  }
}
