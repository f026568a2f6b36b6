/**
 * The phases of a ClusterExtension reconcile (pipeline-state.ts): each step declares the phase it
 * belongs to and gets the state typed for it. The pipeline's order is what sets each phase's
 * fields (validate the installer, resolve the target, render the plan, or they stop the
 * pipeline), so a step run outside its phase is a bug in that order, reported as such.
 */
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import type { ExtensionState, PlannedState, ResolvedState, ValidatedState } from './pipeline-state.ts';

type Run<S> = (state: S) => Promise<StepOutcome> | StepOutcome;

/** Runs `run` when `state` has `field` set (the step that sets it ran), else throws: the pipeline's order is wrong. */
function inPhase<S extends ExtensionState>(name: string, field: 'installer' | 'target' | 'plan', run: Run<S>): Run<ExtensionState> {
  return (state) => {
    if (state.installer === undefined || state[field] === undefined) {
      throw new Error(`ClusterExtension step ${name} run without the state's ${field}: the step that sets it must run first`);
    }
    return run(state as S);
  };
}

/** A step after validate: the installer is known. */
export function validatedStep(name: string, run: Run<ValidatedState>): Step<ExtensionState> {
  return { name, run: inPhase(name, 'installer', run) };
}

/** A step after resolve: the installer and the target bundle are known. */
export function resolvedStep(name: string, run: Run<ResolvedState>): Step<ExtensionState> {
  return { name, run: inPhase(name, 'target', run) };
}

/** A step after render: the plan is made. */
export function plannedStep(name: string, run: Run<PlannedState>): Step<ExtensionState> {
  return { name, run: inPhase(name, 'plan', run) };
}

/**
 * The last step that writes: after render, `planned` with the plan; when an earlier step stopped
 * the pipeline (whatever phase it reached), `stopped` with the state as it is.
 */
export function finalStep(name: string, planned: Run<PlannedState>, stopped: Run<ExtensionState>): Step<ExtensionState> {
  const plannedRun = inPhase(name, 'plan', planned);
  return { name, always: true, run: (state, halted?: boolean) => (halted === true ? stopped(state) : plannedRun(state)) };
}
