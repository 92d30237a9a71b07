/**
 * The URL schemes of each server engine, apart from the connection schemas so that parsing a
 * CLI URI does not load zod (part of every `dwb query`'s start-up).
 */
export const postgresProtocols = ['postgres:', 'postgresql:'] as const;
export const mysqlProtocols = ['mysql:', 'mariadb:'] as const;
export const trinoProtocols = ['trino:'] as const;
export const neo4jProtocols = ['neo4j:', 'neo4j+s:', 'neo4j+ssc:', 'bolt:', 'bolt+s:', 'bolt+ssc:'] as const;
