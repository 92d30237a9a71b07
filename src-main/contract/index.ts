export * from './api';
export * from './connections';
export * from './data';
export * from './errors';
export * from './model';
export * from './notebook';
export * from './run';
export * from './transport';
