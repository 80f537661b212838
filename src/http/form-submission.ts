/**
 * What a form post (the OAuth authorization pages, the app's sign-in and sign-out, the OAuth token and
 * revocation endpoints) must be, checked after formBody parsed it:
 * - a body sent as something other than a form (JSON, plain text) is a 415 that names the form type;
 * - no body at all is a 400: the form arrived empty;
 * - a field sent more than once is a 400 naming it (RFC 6749 section 3.1 forbids it; no form here repeats one);
 * both through the error boundary, so the caller gets a page or an OAuth error, never a 500 or a silent 200.
 */
import type { RequestHandler } from 'express';
import { HeraldError, ValidationError } from '../domain/errors.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * `page`: a person submitted a page's form and is told to submit it again; `client`: a program is told what to send.
 */
export function requireFormSubmission(sender: 'page' | 'client'): RequestHandler {
  const again = sender === 'page' ? 'go back to the page and submit it again' : `send the parameters as ${FORM_TYPE}`;
  return (req, _res, next) => {
    if (req.body !== null && typeof req.body === 'object' && req.is(FORM_TYPE)) {
      const repeated = Object.keys(req.body as object).find(
        (name) => typeof (req.body as Record<string, unknown>)[name] !== 'string',
      );
      return next(
        repeated === undefined
          ? undefined
          : new ValidationError(`The field ${repeated.slice(0, 100)} is sent more than once; send it once.`),
      );
    }
    if (req.headers['content-type'] !== undefined && !req.is(FORM_TYPE)) {
      return next(
        new HeraldError(
          'unsupported_media_type',
          415,
          `This form is sent as ${FORM_TYPE}, not ${req.headers['content-type']}; ${again}.`,
        ),
      );
    }
    next(new ValidationError(`The form arrived empty; ${again}.`));
  };
}
