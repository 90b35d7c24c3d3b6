/**
 * The top-level `transports` object (§4.3): each configuration is checked once, then turned into the canonical
 * binding every agent listing that transport receives.
 */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { copyJson } from '../../json/values.js';
import type {
  Binding,
  Extensions,
  JsonObject,
  McpBinding,
  OtherBinding,
  WoaRestBinding,
} from '../../model/agent.js';
import {
  MCP_FIELDS,
  MCP_TRANSPORT,
  PRIVATE_TRANSPORT_NAME,
  REST_FIELDS,
  REST_TRANSPORT,
  SECTION,
} from './fields.js';

export type WoaBinding = WoaRestBinding | McpBinding | OtherBinding;

export interface TransportEntry {
  /**
   * Undefined when the configuration is too broken to call through. Fields of a `rest` or `mcp` configuration the
   * draft does not define are kept in the binding's `extensions.woa`.
   */
  binding?: WoaBinding;
}

/** Reads the `transports` object; every key is present in the result, so agents can tell unknown from broken. */
export function readTransports(
  transports: JsonObject,
  pointer: string,
  issues: IssueCollector,
): Map<string, TransportEntry> {
  const table = new Map<string, TransportEntry>();
  const outer = new ObjectReader(transports, pointer, issues, 'woa', SECTION.transports);
  for (const name of Object.keys(transports)) {
    const config = ObjectReader.of(
      transports[name],
      outer.at(name),
      issues,
      'woa',
      `The configuration of transport "${name}"`,
      SECTION.transports,
    );
    if (config === undefined) {
      table.set(name, {});
      continue;
    }
    if (name === REST_TRANSPORT) table.set(name, readRest(config));
    else if (name === MCP_TRANSPORT) table.set(name, readMcp(config));
    else table.set(name, readPrivate(name, config));
  }
  return table;
}

function readRest(config: ObjectReader): TransportEntry {
  const section = SECTION.rest;
  const base = config.string('base', { required: true, section });
  if (base !== undefined) {
    if (!URL.canParse(base)) {
      config.issues.error(
        config.at('base'),
        'woa.rest.base-not-absolute',
        `"base" must be an absolute https URL (such as https://api.example.com), got "${base}".`,
        section,
      );
    } else if (new URL(base).protocol !== 'https:') {
      config.issues.error(
        config.at('base'),
        'woa.rest.base-not-https',
        `"base" must use the https scheme: WoA forbids plain HTTP for REST invocations; got "${base}".`,
        section,
      );
    }
  }
  const invokePath = config.string('invoke_path', { required: true, section });
  if (invokePath !== undefined && !invokePath.startsWith('/')) {
    config.issues.error(
      config.at('invoke_path'),
      'woa.rest.invoke-path',
      `"invoke_path" must be an absolute path starting with "/", such as "/agents/{agent_id}/invoke"; got "${invokePath}".`,
      section,
    );
  }
  const entry: TransportEntry = {};
  if (base !== undefined && invokePath !== undefined)
    entry.binding = restBinding(base, invokePath, config.rest(REST_FIELDS));
  return entry;
}

function readMcp(config: ObjectReader): TransportEntry {
  const section = SECTION.mcp;
  const server = config.text('server', { required: true, section });
  const toolNamespace = config.string('tool_namespace', { required: true, section });
  const toolField = config.text('tool_field', { required: true, section });
  const entry: TransportEntry = {};
  if (server !== undefined && toolNamespace !== undefined && toolField !== undefined) {
    entry.binding = mcpBinding(server, toolNamespace, toolField, config.rest(MCP_FIELDS));
  }
  return entry;
}

function readPrivate(name: string, config: ObjectReader): TransportEntry {
  if (!PRIVATE_TRANSPORT_NAME.test(name)) {
    config.issues.error(
      config.pointer,
      'woa.transport.private-name',
      `Transport "${name}" is neither "rest" nor "mcp", so it is private and its name must start with a reverse-DNS prefix, such as "com.example.${name}".`,
      SECTION.privateTransport,
    );
  }
  return { binding: otherBinding(name, config.value) };
}

// The canonical bindings, built in one place so that the emitter predicts exactly what parsing gives back.

/** `extras`: the configuration's fields the draft does not define, kept in the binding's `extensions.woa`. */
export function restBinding(base: string, invokePath: string, extras?: JsonObject): WoaRestBinding {
  const binding: WoaRestBinding = { kind: 'woa-rest', base, invokePath, transportName: REST_TRANSPORT };
  if (extras !== undefined) binding.extensions = { woa: extras };
  return binding;
}

export function mcpBinding(
  server: string,
  toolNamespace: string,
  toolField: string,
  extras?: JsonObject,
): McpBinding {
  const binding: McpBinding = { kind: 'mcp', server, toolNamespace, toolField, transportName: MCP_TRANSPORT };
  if (extras !== undefined) binding.extensions = { woa: extras };
  return binding;
}

export function otherBinding(name: string, config: JsonObject): OtherBinding {
  return { kind: 'other', protocol: name, config };
}

/**
 * A fresh binding per agent, so that agents sharing a transport do not share one binding object, nor the unknown
 * fields of its configuration. Like every value read from the document, a private transport's configuration is
 * shared, not copied.
 */
export function copyBinding(binding: WoaBinding): Binding {
  const copy = { ...binding };
  if (binding.extensions !== undefined) copy.extensions = copyJson(binding.extensions) as Extensions;
  return copy;
}
