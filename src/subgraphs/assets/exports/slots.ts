import { fail, ok, type Result } from '../../../shared/result.ts';

/** A download's hold on one of the process's export slots. */
export interface ExportSlot {
  /** Gives the slot back; only the first call counts. */
  release(): void;
}

/** Why no slot was given: the tenant holds its share, or every slot is taken. */
export type NoSlot = 'TENANT_SHARE' | 'ALL_TAKEN';

/**
 * The export slots of one process, shared between tenants. Each streaming download holds a
 * pooled database connection, so at most `maxConcurrent` stream at once; and one tenant holds at
 * most `maxPerTenant` of them, so that a tenant whose links are stalled (or abused by whoever
 * holds them) cannot leave every other tenant with 503s.
 */
export class ExportSlots {
  readonly #maxConcurrent: number;
  readonly #maxPerTenant: number;
  readonly #byTenant = new Map<string, number>();
  #taken = 0;

  constructor(limits: { maxConcurrent: number; maxPerTenant: number }) {
    this.#maxConcurrent = limits.maxConcurrent;
    this.#maxPerTenant = limits.maxPerTenant;
  }

  /** Slots held now, in all and by `tenant`. */
  taken(tenant?: string): number {
    return tenant === undefined ? this.#taken : (this.#byTenant.get(tenant) ?? 0);
  }

  take(tenant: string): Result<ExportSlot, NoSlot> {
    const mine = this.#byTenant.get(tenant) ?? 0;
    if (mine >= this.#maxPerTenant)
      return fail('TENANT_SHARE', `This group already has ${mine} exports streaming, its most at once.`);
    if (this.#taken >= this.#maxConcurrent) return fail('ALL_TAKEN', 'Every export slot is taken.');
    this.#taken++;
    this.#byTenant.set(tenant, mine + 1);
    let held = true;
    return ok({
      release: () => {
        if (!held) return;
        held = false;
        this.#taken--;
        const left = (this.#byTenant.get(tenant) ?? 1) - 1;
        if (left > 0) this.#byTenant.set(tenant, left);
        else this.#byTenant.delete(tenant);
      },
    });
  }
}
