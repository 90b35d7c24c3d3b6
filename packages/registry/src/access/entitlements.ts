/**
 * Entitlements (AIDIP §9: "registries MUST enforce per-client entitlements"): a restricted agent exists only for
 * the admin, its owner and members of one of its groups. For everyone else it is absent — 404 on every
 * endpoint, missing from every listing — never 403, which would confirm it exists.
 */

import type { Caller, RegistryRecord } from '../records/types.js';
import { mayManage } from '../records/views.js';
import type { RecordAccess } from '../store/agents.js';

export function canSee(record: RegistryRecord, caller: Caller): boolean {
  if (record.access === undefined || mayManage(record, caller)) return true;
  return record.access.groups.some((group) => caller.groups.includes(group));
}

/** Whether `caller` may change or delete `record`: hidden ones are not there; others need the owner or admin. */
export function writeAccess(record: RegistryRecord, caller: Caller): RecordAccess {
  if (!canSee(record, caller)) return 'hide';
  return mayManage(record, caller) ? 'allow' : 'forbid';
}
