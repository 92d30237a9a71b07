/** IPC channel names shared by the main process and the preload. */
export const invokeChannel = 'dwb:invoke';
export const eventChannel = 'dwb:event';
