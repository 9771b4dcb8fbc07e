/** The values of `ls --has` and `ls --sort`: one list for the CLI's parser and the command. */
export const LS_SORTS = ["recent", "size", "archives", "resets", "key"] as const;
export type LsSort = (typeof LS_SORTS)[number];
export const LS_HAS = ["resets", "deletes", "archives"] as const;
export type LsHas = (typeof LS_HAS)[number];
