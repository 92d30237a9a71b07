export * from './api';
export * from './connections';
export * from './data';
export * from './errors';
export * from './notebook';
export * from './transport';
