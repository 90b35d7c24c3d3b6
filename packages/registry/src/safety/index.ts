/** The prompt-injection scan of agent descriptions (untrusted text, WoA §8.2). */
export { excerptAround, normalizeText } from './normalize.js';
export {
  BASE64_RUN,
  HIDDEN_TEXT_RULES,
  type HiddenTextRule,
  type SafetyRuleName,
  TEXT_RULES,
  type TextRule,
} from './rules.js';
export { agentTexts, decodeBase64Text, scanAgentText, scanText } from './scan.js';
