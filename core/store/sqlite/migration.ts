/** One schema step; `version` is the user_version the file has once it ran. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}
