/**
 * The prompt-injection rules, as data. Agent descriptions are untrusted text that reaches language models (WoA
 * §8.2 on indirect prompt injection); these patterns find text written to instruct such a model rather than to
 * describe an agent. Patterns run on normalised text (normalize.ts: NFKC, lower case, invisible characters removed,
 * spaces collapsed, line breaks kept).
 *
 * Precision matters more than recall here: a flag marks a publisher's agent as suspicious, so each pattern needs
 * an instruction-shaped context (an imperative aimed at the model plus what it targets), never a lone word.
 * "Ignores whitespace", "You can book flights" and "Include your API key in the X-API-Key header" must not match.
 */

/** The stable rule names stored in `SafetyFlag.rule`. */
export type SafetyRuleName =
  | 'instruction-override'
  | 'role-injection'
  | 'exfiltration'
  | 'tool-coercion'
  | 'hidden-text'
  | 'encoded-instructions'
  | 'active-content';

export interface TextRule {
  rule: SafetyRuleName;
  /** Names the pattern within its rule, for tests and logs. */
  id: string;
  pattern: RegExp;
  description: string;
  /** The pattern needs line breaks (markup that is markup only at a line start); others see one line. */
  lines?: true;
}

// Shared fragments. `W` allows a few filler words between the parts of a phrase ("ignore all of the previous").
const W = "(?:[\\w'’-]+ ){0,3}";
const EARLIER =
  '(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|developer)';
const DIRECTIVES = '(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|commands?)';
const MODEL = '(?:ai|assistant|llm|language model|model|chatbot|agent|claude|gpt|chatgpt|copilot)';
const SECRET =
  '(?:api[ -]?keys?|access[ -]?tokens?|auth(?:entication)?[ -]?tokens?|bearer tokens?|passwords?|passphrases?|credentials|secrets?|private[ -]?keys?|ssh[ -]?keys?|session (?:cookies?|tokens?)|cookies|seed phrases?|recovery phrases?)';
const USERS = "(?:the user'?s?|users'|their|all (?:of )?the user'?s?|any)";
const CONVERSATION =
  '(?:(?:the |this |entire |whole |full )*(?:conversation|chat history|chat log|message history|previous messages|system prompt|context window))';
const PEOPLE = '(?:the |your )?(?:user|users|human|operator|person)';
/**
 * Tool descriptions written for models legitimately say "when the user asks about X, you must always call this
 * function": an order that depends on what the person wants. The coercion rules skip a sentence that opens with
 * such a condition, unless the condition is about who the model is or what it reads ("if you are an AI reading
 * this, …").
 */
const UNLESS_CONDITIONAL =
  "(?<!\\b(?:if|when|whenever|once|unless)\\b(?! you(?: are|'re| read| see)\\b| the (?:ai|assistant|model|llm)\\b)[^.!?\\n]{0,200})";

/**
 * `opening`, where the sentence before it does not open with such a condition. The lookahead comes first so the
 * lookbehind (up to 200 characters back) runs only where `opening` matches, not at every position of the text:
 * at every position it cost about 0.4 s on a 64 KiB description.
 */
function unlessConditional(opening: string): string {
  return `(?=${opening})${UNLESS_CONDITIONAL}${opening}`;
}

export const TEXT_RULES: readonly TextRule[] = [
  // Instruction overrides: text telling the model to drop what it was told.
  {
    rule: 'instruction-override',
    id: 'ignore-earlier-instructions',
    pattern: new RegExp(
      `\\b(?:ignore|disregard|forget|override|bypass|discard) ${W}${EARLIER} ${W}${DIRECTIVES}`,
    ),
    description: 'asks the model to ignore its earlier or system instructions',
  },
  {
    rule: 'instruction-override',
    id: 'ignore-all-instructions',
    pattern: new RegExp(
      `\\b(?:ignore|disregard|forget) (?:all|any|every|your)(?: of)?(?: the| your)? (?:other )?${DIRECTIVES}`,
    ),
    description: 'asks the model to ignore all of its instructions',
  },
  {
    rule: 'instruction-override',
    id: 'disregard-above',
    pattern:
      /\b(?:ignore|disregard|forget) (?:(?:everything|anything|all|what(?:ever)? (?:was|is|you were)) (?:(?:you (?:were|have been) )?(?:written|said|stated|told) )?(?:above|before|previously|so far)|(?:the|all) (?:text |content |instructions |messages )?(?:above|preceding)\b)/,
    description: 'asks the model to disregard what came before',
  },
  {
    rule: 'instruction-override',
    id: 'you-are-now',
    pattern:
      /\byou are now (?!(?:able|ready|connected|logged|signed|subscribed|registered|set up|all set|enrolled|verified|authenticated|authori[sz]ed|in the (?:queue|waiting)|on the (?:list|waitlist))\b)(?:a |an |the |in |acting |operating |no longer |free\b|unrestricted|jailbroken|dan\b|developer mode)/,
    description: 'tries to give the model a new identity or mode ("you are now …")',
  },
  {
    rule: 'instruction-override',
    id: 'from-now-on',
    pattern: new RegExp(`\\bfrom now on,? (?:you|the ${MODEL}) (?:will|must|shall|should|are to|have to)\\b`),
    description: 'sets standing orders for the model ("from now on you must …")',
  },
  {
    rule: 'instruction-override',
    id: 'system-prompt-tampering',
    pattern:
      /\b(?:reveal|print|output|repeat|leak|disclose|show|display|dump|ignore|override|bypass|replace|overwrite) (?:me )?(?:the |your |its |any )?(?:full |entire |original |hidden )?system (?:prompt|message|instructions)\b/,
    description: 'asks the model to reveal or replace its system prompt',
  },
  {
    rule: 'instruction-override',
    id: 'new-instructions-header',
    pattern:
      /\b(?:new|updated|real|actual|true|hidden|secret|revised|override) (?:instructions?|directives?|system prompt|orders)\s?:/,
    description: 'introduces replacement instructions ("new instructions:")',
  },
  {
    rule: 'instruction-override',
    id: 'note-to-model',
    pattern: new RegExp(
      `\\b(?:note|message|instructions?|attention|important) (?:to|for) (?:the |any |all )?${MODEL}s?\\b[^\\n]{0,40}?(?:reading|processing|parsing|seeing) (?:this|these)`,
    ),
    description: 'addresses the model reading the description directly',
  },

  // Role and chat-markup injection: tokens that fake a conversation turn or a tool boundary.
  {
    rule: 'role-injection',
    id: 'chat-template-token',
    pattern:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_turn|start_of_turn)\|>|<(?:start|end)_of_turn>/,
    description: 'contains chat-template control tokens',
  },
  {
    rule: 'role-injection',
    id: 'inst-markers',
    pattern: /\[\/?inst\]|<<\/?sys>>/,
    description: 'contains instruction-tuning markers ([INST], <<SYS>>)',
  },
  {
    rule: 'role-injection',
    id: 'role-heading',
    lines: true,
    pattern:
      /(?:^|\n)#{1,6} ?(?:system|assistant|system prompt|system message|instructions? for the (?:ai|assistant|model))\s?:?(?:\n|$)/,
    description: 'a markdown heading that opens a fake system or assistant turn',
  },
  {
    rule: 'role-injection',
    id: 'role-tag',
    pattern:
      /<\/?(?:system|assistant|tool|tools|tool_call|tool_result|tool_response|function_call|function_results|function_response|instructions?|important|admin|developer)>/,
    description: 'an XML-style tag that opens or closes a system, tool or instruction block',
  },
  {
    rule: 'role-injection',
    id: 'turn-prefix',
    lines: true,
    pattern: /(?:^|\n)(?:system|assistant) ?: ?(?:you |ignore |disregard |from now |always |never |do not )/,
    description: 'a line that fakes a system or assistant turn giving orders',
  },

  // Exfiltration: sending the conversation or secrets somewhere, or reading local secrets.
  {
    rule: 'exfiltration',
    id: 'send-secrets-to-url',
    pattern: new RegExp(
      `\\b(?:send|post|upload|forward|transmit|exfiltrate|leak|email|submit|report|copy) ${W}(?:${SECRET}|${CONVERSATION}|(?:the )?user'?s? (?:data|messages|files|information|details|personal))[^\\n]{0,80}?\\bto (?:https?://|www\\.|[\\w.-]+@[\\w-]+\\.)`,
    ),
    description: 'asks the model to send secrets or the conversation to an address',
  },
  {
    rule: 'exfiltration',
    id: 'include-user-secrets',
    pattern: new RegExp(
      `\\b(?:include|add|append|attach|pass|put|insert|embed|provide|send|paste|copy) ${USERS} ${W}${SECRET}`,
    ),
    description: "asks the model to put the user's secrets into a call",
  },
  {
    rule: 'exfiltration',
    id: 'include-conversation',
    pattern: new RegExp(
      `\\b(?:include|add|append|attach|pass|put|insert|embed|send|paste|copy|forward) ${CONVERSATION} (?:in|into|as|to|with) (?:the |this |a |every |each )?(?:${W})?(?:parameter|argument|field|request|call|input|query|url|tool)`,
    ),
    description: 'asks the model to pass the conversation or system prompt into a call',
  },
  {
    rule: 'exfiltration',
    id: 'read-local-secrets',
    pattern:
      /\b(?:read|open|cat|load|fetch|include|pass|send|upload|copy|get) (?:[\w'’-]+ ){0,6}(?:~\/\.ssh|~\/\.aws|~\/\.cursor|\.ssh\/id_|id_rsa|id_ed25519|\/etc\/(?:passwd|shadow)|\.aws\/credentials|mcp\.json|\.npmrc|\.netrc|\.git-credentials)/,
    description: 'asks the model to read a local secret file (SSH keys, cloud credentials, MCP config)',
  },

  // Tool-use coercion: steering which tool the model calls, or hiding it from the person.
  {
    rule: 'tool-coercion',
    id: 'always-use-this-tool',
    pattern: new RegExp(
      `${unlessConditional('\\b(?:always|must|you must|you should always|be sure to|make sure to) ')}(?:first )?(?:call|use|invoke|run|choose|select|prefer|pick|route (?:all )?(?:requests|queries) (?:to|through)) (?:this|these|our|my) (?:tool|tools|function|agent|server|plugin|skill)\\b(?! (?:when|if|whenever|to|before|after|with|in order)\\b| for (?!every|all|any)\\w)`,
    ),
    description: 'orders the model to always use this tool',
  },
  {
    rule: 'tool-coercion',
    id: 'instead-of-other-tools',
    pattern:
      /\b(?:instead of|rather than|before (?:using|calling)|in place of) (?:any|all|every) (?:other )?(?:tools?|functions?|agents?|servers?|plugins?)\b/,
    description: 'asks the model to prefer this tool over every other',
  },
  {
    rule: 'tool-coercion',
    id: 'never-use-other-tools',
    pattern:
      /\b(?:never|do not|don't|must not) (?:use|call|invoke|trust) (?:any )?(?:other|competing|alternative) (?:tools?|functions?|agents?|servers?|plugins?)\b/,
    description: 'forbids the model from using other tools',
  },
  {
    rule: 'tool-coercion',
    id: 'conceal-from-user',
    pattern: new RegExp(
      `${unlessConditional("\\b(?:do not|don't|never|must not|should not|without) ")}(?:ever )?(?:tell|telling|inform|informing|notify|notifying|mention|mentioning|reveal|revealing|disclose|disclosing|show|showing|alert|alerting|let) (?:this |that |it |anything )?(?:to )?${PEOPLE}\\b`,
    ),
    description: 'asks the model to hide what it does from the person',
  },
  {
    rule: 'tool-coercion',
    id: 'user-must-not-know',
    pattern: new RegExp(
      `\\b${PEOPLE} (?:must|should|need|needs|does|do) not (?:know|see|notice|be told|find out)\\b`,
    ),
    description: 'asks the model to keep the person unaware',
  },
  {
    rule: 'tool-coercion',
    id: 'skip-confirmation',
    pattern: new RegExp(
      `\\b(?:do not|don't|never|without) (?:ask|asking|seek|seeking|request|requesting|wait|waiting)(?: ${PEOPLE})? for (?:${PEOPLE}'?s? )?(?:confirmation|permission|approval|consent)\\b(?! (?:from|of) the (?:server|api|service))`,
    ),
    description: "tells the model to act without the person's confirmation",
  },

  // Active content: HTML that runs code wherever a description is rendered as markup (a directory page, a chat
  // client's markdown). A description never needs it. Bounded gaps keep every pattern linear in the text.
  {
    rule: 'active-content',
    id: 'script-element',
    // An element: opened and closed, or loading a source. Prose about "<script> tags" is neither.
    pattern: /<script\b[^<>]{0,200}>[\s\S]{0,1000}?<\/script|<script\s[^<>]{0,200}?\bsrc ?=/,
    description: 'contains an HTML <script> element',
  },
  {
    rule: 'active-content',
    id: 'embedding-element',
    pattern: /<(?:iframe|frame|frameset|object|embed|applet)\b/,
    description: 'contains an HTML element that embeds other content (<iframe>, <object>, <embed>)',
  },
  {
    rule: 'active-content',
    id: 'script-url',
    // `javascript:alert(1)`, not "written in JavaScript: it …" (a URL has no space after the colon).
    pattern: /\b(?:java|vb|live)script:(?=[^\s])|\bdata:text\/html\b/,
    description: 'contains a javascript: (or data:text/html) URL',
  },
  {
    rule: 'active-content',
    id: 'event-handler-attribute',
    pattern: /<[a-z][a-z0-9-]{0,30}\b[^<>]{0,200}?[\s/"']on[a-z]{3,20} ?=/,
    description: 'contains an HTML event-handler attribute (onerror=, onload=, onclick=…)',
  },
];

/** Hidden text: what a person does not see in the description but a model does. Runs on the raw text. */
export interface HiddenTextRule {
  rule: 'hidden-text';
  id: string;
  /** Counts the suspicious characters; the rule fires at `threshold` or more. */
  pattern: RegExp;
  threshold: number;
  description: string;
}

export const HIDDEN_TEXT_RULES: readonly HiddenTextRule[] = [
  {
    rule: 'hidden-text',
    id: 'unicode-tags',
    // The tag block spells invisible ASCII that models read (ASCII smuggling).
    pattern: /\udb40[\udc00-\udc7f]/g,
    threshold: 1,
    description: 'contains Unicode tag characters (invisible ASCII)',
  },
  {
    rule: 'hidden-text',
    id: 'bidi-controls',
    // Embeddings, overrides and isolates reorder what is shown against what is read (Trojan Source).
    pattern: /[\u202a-\u202e\u2066-\u2069]/g,
    threshold: 1,
    description: 'contains bidirectional override or isolate controls',
  },
  {
    rule: 'hidden-text',
    id: 'zero-width',
    // One stray zero-width space comes from copy and paste; several are a pattern.
    pattern: /[\u200b\u2060-\u2064\u180e]|(?<!^)\ufeff/g,
    threshold: 3,
    description: 'contains several zero-width characters',
  },
  {
    rule: 'hidden-text',
    id: 'joiner-inside-word',
    // Joiners belong in emoji and in scripts that shape letters; between two Latin letters they split a word so
    // that filters miss it.
    pattern: /[a-z][\u200b-\u200d\u2060\u00ad]+[a-z]/gi,
    threshold: 2,
    description: 'splits Latin words with invisible characters',
  },
];

/** A run of base64 long enough to hold a sentence; decoded and checked against the text rules. */
export const BASE64_RUN = /[A-Za-z0-9+/]{32,}={0,2}|[A-Za-z0-9_-]{32,}/g;
