/** CHANGELOG.md's text with Unreleased released as `version` on `date` (YYYY-MM-DD); throws when there is nothing to release. */
export declare function releaseChangelog(text: string, version: string, date: string): string;
