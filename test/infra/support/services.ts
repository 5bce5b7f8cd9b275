// The same services and helpers as the distributed tests.
export {
  DATABASE_URL,
  deletePrefix,
  dropSchema,
  freshPrefix,
  freshSchema,
  PATIENCE_MS,
  REDIS_URL,
  waitFor,
} from "../../distributed/support/services.js";
