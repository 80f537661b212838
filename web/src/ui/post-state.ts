/** The states of a post Herald still lets a person change (PATCH refuses the others: published, live, on its way). */
export const EDITABLE = new Set(['draft', 'scheduled', 'failed']);
