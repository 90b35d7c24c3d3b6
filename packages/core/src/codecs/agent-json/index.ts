/** The agent:// descriptor codec (agent.json, draft-narvaneni-agent-uri §5, §7 and Appendix A). */
import { defineCodec } from '../define.js';
import { isAgentDescriptor } from './detect.js';
import { emitDescriptor } from './emit.js';
import { parseDescriptor } from './parse.js';

export const agentJsonCodec = defineCodec({
  format: 'agent-json',
  title: 'agent:// descriptor (agent.json)',
  specName: 'agent://',
  mediaType: 'application/ld+json',
  signature: 'capabilities as an array of objects, or a JSON-LD @context',
  carries: {
    agent: [
      'id',
      'name',
      'description',
      'version',
      'publisher',
      'url',
      'documentationUrl',
      'supportedVersions',
      'surface.interactionModel',
      'surface.orchestration',
      'surface.envelopeSchemas',
      'auth.schemes',
      'auth.security',
      'extensions.agent-json',
    ],
    operation: [
      'description',
      'version',
      'input',
      'output',
      'tags',
      'inputModes',
      'outputModes',
      'deterministic',
      'outputVariability',
      'latency',
      'requiresContext',
      'memoryEnabled',
      'confidenceEstimation',
      'extensions.agent-json',
    ],
    // Written verbatim under `agentry:bindings`.
    bindings: ['woa-rest', 'http', 'mcp', 'a2a', 'wss', 'unix', 'local', 'other'],
  },
  detect: isAgentDescriptor,
  parse: parseDescriptor,
  emitOne: emitDescriptor,
});
