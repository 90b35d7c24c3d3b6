/**
 * English function words and request filler ("please", "I need", "can you") that say nothing about which agent
 * fits. Dropped from lexical queries only (documents keep them), and only when other words remain, so that a long
 * request is ranked by its content words instead of by which description says "the" most often.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor so yet if then else than that this these those there here ' +
    'i me my mine we us our ours you your yours he him his she her hers it its they them their theirs ' +
    'am is are was were be been being do does did doing done have has had having ' +
    'can could would should shall will may might must ought ' +
    'of in on at to for from by with without about into onto over under up down out off as per via ' +
    'what which who whom whose when where why how ' +
    'not no yes all any some each every both either neither few more most other such own same too very just only also ' +
    'please pls kindly want wants wanted need needs needed like would let lets help tell give show ' +
    'im ive id youre dont doesnt cant wont isnt arent s t'
  ).split(' '),
);
