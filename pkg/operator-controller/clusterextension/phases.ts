/**
 * The phases of a ClusterExtension reconcile (pipeline-state.ts): each step declares the phase it
 * belongs to and gets the state typed for it. The pipeline's order is what sets each phase's
 * fields (validate the installer, resolve the target, render the plan, or they stop the
 * pipeline), so a step run outside its phase is a bug in that order, reported as such.
 */
import type { Step, StepOutcome } from '../../shared/controller/index.ts';
import type { ExtensionState, PlannedState, ResolvedState, ValidatedState } from './pipeline-state.ts';

type Run<S> = (state: S) => Promise<StepOutcome> | StepOutcome;

function outOfOrder(name: string, field: string): Error {
  return new Error(`ClusterExtension step ${name} run without the state's ${field}: the step that sets it must run first`);
}

function isValidated(state: ExtensionState): state is ValidatedState {
  return state.installer !== undefined;
}

function isResolved(state: ExtensionState): state is ResolvedState {
  return isValidated(state) && state.target !== undefined;
}

function isPlanned(state: ExtensionState): state is PlannedState {
  return isValidated(state) && state.plan !== undefined;
}

/** A step after validate: the installer is known. */
export function validatedStep(name: string, run: Run<ValidatedState>): Step<ExtensionState> {
  return {
    name,
    run: (state) => {
      if (!isValidated(state)) throw outOfOrder(name, 'installer');
      return run(state);
    },
  };
}

/** A step after resolve: the installer and the target bundle are known. */
export function resolvedStep(name: string, run: Run<ResolvedState>): Step<ExtensionState> {
  return {
    name,
    run: (state) => {
      if (!isResolved(state)) throw outOfOrder(name, 'target');
      return run(state);
    },
  };
}

/** A step after render: the plan is made. */
export function plannedStep(name: string, run: Run<PlannedState>): Step<ExtensionState> {
  return {
    name,
    run: (state) => {
      if (!isPlanned(state)) throw outOfOrder(name, 'plan');
      return run(state);
    },
  };
}

/**
 * The last step that writes: after render, `planned` with the plan; when an earlier step stopped
 * the pipeline (whatever phase it reached), `stopped` with the state as it is.
 */
export function finalStep(name: string, planned: Run<PlannedState>, stopped: Run<ExtensionState>): Step<ExtensionState> {
  return {
    name,
    always: true,
    run: (state, halted?: boolean) => {
      if (halted === true) return stopped(state);
      if (!isPlanned(state)) throw outOfOrder(name, 'plan');
      return planned(state);
    },
  };
}
