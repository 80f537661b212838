import { HeraldError, type FieldProblem } from '../domain/errors.js';

export interface ErrorBody {
  status: false;
  code: string;
  message: string;
  details?: FieldProblem[];
}

export function errorBody(error: HeraldError): ErrorBody {
  return { status: false, code: error.code, message: error.message, ...(error.details?.length ? { details: error.details } : {}) };
}
