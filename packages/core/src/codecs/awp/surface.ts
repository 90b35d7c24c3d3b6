/**
 * The surface-level objects of an agent.json: `capabilities` (§6), `auth` (§7), `errors` (§10), `agent_status`
 * (§13) and the synthetic-file declaration (§14). Each reader is also used by the emitter to read back what it
 * wrote, so that a loss report names exactly what does not survive.
 */
import type { IssueCollector } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import { ObjectReader } from '../../json/reader.js';
import { setOwn } from '../../json/values.js';
import type {
  AgentStatus,
  AuthContract,
  ErrorContract,
  Provenance,
  SecurityScheme,
  SurfaceFlags,
} from '../../model/agent.js';
import { pointerTo } from './pointers.js';
import {
  AUTH_TYPES,
  BOOLEAN_CAPABILITIES,
  DATE_TIME_PATTERN,
  PAGINATION_STYLES,
  SECTION,
  SYNTHETIC_FIELDS,
} from './rules.js';

export function readCapabilities(capabilities: ObjectReader | undefined): SurfaceFlags | undefined {
  if (capabilities === undefined) return undefined;
  const flags: SurfaceFlags = {};
  for (const [field, flag] of BOOLEAN_CAPABILITIES) {
    const value = capabilities.boolean(field);
    if (value !== undefined) flags[flag] = value;
  }
  const pagination = capabilities.string('pagination');
  if (pagination !== undefined) {
    if (!PAGINATION_STYLES.has(pagination)) {
      capabilities.issues.warning(
        capabilities.at('pagination'),
        'awp.capabilities.pagination',
        `pagination "${pagination}" is none of cursor, offset, page or none; agents may not know how to page.`,
        SECTION.capabilities,
      );
    }
    flags.pagination = pagination;
  }
  return Object.keys(flags).length > 0 ? flags : undefined;
}

/** The canonical scheme an `auth.type` names; a type AWP does not list is kept as an `other` scheme. */
function authScheme(type: string): SecurityScheme {
  const known = AUTH_TYPES.get(type);
  return known === undefined ? { id: type, type: 'other', scheme: type } : { id: type, type: known };
}

export function readAuth(
  auth: ObjectReader | undefined,
  actions: ReadonlySet<string>,
): AuthContract | undefined {
  if (auth === undefined) return undefined;
  const contract: AuthContract = {};
  const requiredFor = readActionList(auth, 'required_for', actions);
  const optionalFor = readActionList(auth, 'optional_for', actions);
  if (requiredFor !== undefined) contract.requiredFor = requiredFor;
  if (optionalFor !== undefined) contract.optionalFor = optionalFor;
  for (const name of requiredFor ?? []) {
    if (optionalFor?.includes(name)) {
      auth.issues.warning(
        auth.at('optional_for'),
        'awp.auth.overlap',
        `Action "${name}" is listed both in required_for and optional_for; say which it is.`,
        SECTION.auth,
      );
    }
  }
  const type = auth.text('type');
  if (type !== undefined) {
    if (!AUTH_TYPES.has(type)) {
      auth.issues.warning(
        auth.at('type'),
        'awp.auth.type',
        `Auth type "${type}" is none of oauth2, api_key, bearer or none; agents may not know how to authenticate.`,
        SECTION.auth,
      );
    }
    contract.schemes = [authScheme(type)];
  }
  const tokenExpiry = auth.string('token_expiry');
  if (tokenExpiry !== undefined) contract.tokenExpiry = tokenExpiry;
  const refreshEndpoint = auth.string('refresh_endpoint');
  if (refreshEndpoint !== undefined) contract.refreshEndpoint = refreshEndpoint;
  return Object.keys(contract).length > 0 ? contract : undefined;
}

/** A list of action ids; naming an action the file does not declare is a warning (the list still stands). */
function readActionList(
  reader: ObjectReader,
  key: string,
  actions: ReadonlySet<string>,
): string[] | undefined {
  const names = reader.stringArray(key);
  names?.forEach((name, index) => {
    if (actions.has(name)) return;
    reader.issues.warning(
      joinPointer(reader.at(key), index),
      `${reader.codePrefix}.unknown-action`,
      `"${name}" in ${key} is not an action of this file.`,
      reader.section,
    );
  });
  return names;
}

export function readErrors(errors: ObjectReader | undefined): Record<string, ErrorContract> | undefined {
  if (errors === undefined) return undefined;
  const out: Record<string, ErrorContract> = {};
  for (const code of Object.keys(errors.value)) {
    const entry = ObjectReader.of(
      errors.value[code],
      pointerTo(errors.pointer, code),
      errors.issues,
      'awp.error',
      `Error "${code}"`,
      SECTION.errors,
    );
    if (entry === undefined) continue;
    if (!entry.has('recovery')) {
      errors.issues.error(
        entry.at('recovery'),
        'awp.error.recovery-missing',
        `Error "${code}" has no "recovery": every error must tell a machine how to recover, e.g. "wait 60 seconds then retry".`,
        SECTION.errors,
      );
      continue;
    }
    const recovery = entry.text('recovery');
    if (recovery === undefined || recovery.trim() === '') continue;
    const extra = entry.rest(['recovery']);
    setOwn(out, code, extra === undefined ? { recovery } : { recovery, extra });
  }
  return out;
}

export function readStatus(
  status: ObjectReader | undefined,
  actions: ReadonlySet<string>,
): AgentStatus | undefined {
  if (status === undefined) return undefined;
  const out: AgentStatus = {};
  const operational = status.boolean('operational');
  if (operational !== undefined) out.operational = operational;
  const degraded = readActionList(status, 'degraded_actions', actions);
  if (degraded !== undefined) out.degradedOperations = degraded;
  const endpoint = status.string('status_endpoint');
  if (endpoint !== undefined) out.statusEndpoint = endpoint;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Reads the synthetic-file declaration into `provenance`. Returns true when the file declares itself synthetic;
 * otherwise its declaration fields, if any, stay extensions.
 */
export function readOrigin(document: ObjectReader, provenance: Provenance, issues: IssueCollector): boolean {
  const declaration = new ObjectReader(document.value, '', issues, 'awp.synthetic', SECTION.synthetic);
  const source = declaration.raw('source');
  if (source === undefined) {
    const stray = SYNTHETIC_FIELDS.filter((field) => field !== 'source' && declaration.has(field));
    if (stray.length > 0) {
      issues.warning(
        '',
        'awp.synthetic.source-missing',
        `${stray.join(', ')} describe a synthetic file, which must declare "source": "synthetic"; ` +
          'without it the file is read as native and these fields are kept as extensions.',
        SECTION.synthetic,
      );
    }
    return false;
  }
  if (source !== 'synthetic') {
    issues.warning(
      '/source',
      'awp.synthetic.source',
      `source ${JSON.stringify(source)} is not "synthetic", the one value AWP defines; the file is read as native.`,
      SECTION.synthetic,
    );
    return false;
  }
  provenance.origin = 'synthetic';
  const generatedBy = declaration.text('generated_by');
  if (generatedBy === undefined && !declaration.has('generated_by')) {
    issues.warning(
      '/generated_by',
      'awp.synthetic.generator-missing',
      'A synthetic file should name what generated it in "generated_by".',
      SECTION.synthetic,
    );
  }
  if (generatedBy !== undefined) provenance.generatedBy = generatedBy;
  const confidence = declaration.number('confidence');
  if (confidence !== undefined) {
    if (confidence >= 0 && confidence <= 1) provenance.confidence = confidence;
    else
      issues.error(
        '/confidence',
        'awp.synthetic.confidence',
        `confidence ${confidence} is outside 0..1.`,
        SECTION.synthetic,
      );
  }
  const lastVerified = declaration.string('last_verified');
  if (lastVerified !== undefined) {
    if (DATE_TIME_PATTERN.test(lastVerified)) provenance.lastVerified = lastVerified;
    else
      issues.error(
        '/last_verified',
        'awp.synthetic.last-verified',
        `last_verified "${lastVerified}" is not a date-time such as 2026-03-15T10:00:00Z.`,
        SECTION.synthetic,
      );
  }
  return true;
}
