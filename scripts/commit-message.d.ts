/** The longest subject the convention allows. */
export declare const SUBJECT_LIMIT: number;
/** What breaks the commit message convention in `text`, one sentence each; empty when it follows it. */
export declare function commitMessageProblems(text: string): string[];
