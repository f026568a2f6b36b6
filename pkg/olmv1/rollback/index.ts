/** pkg/olmv1/rollback: `olmv1 release rollback`'s service, for the command and the console. */
export { rollBack, type RollbackDone, type RollbackPorts, type RollbackRefusal } from './service.ts';
