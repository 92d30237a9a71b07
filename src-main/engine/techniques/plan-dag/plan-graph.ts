// The plan's reading and validation are pure and shared with the renderer, which runs the same
// checks on the analyst's edits in step-through: they live in the contract.
export * from '../../../contract/plan-dag-plan';
