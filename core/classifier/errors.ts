/** The model folder is missing, unreadable or not a model this service can run. */
export class ModelLoadError extends Error {
  override name = 'ModelLoadError';
}

/** The model was trained on features this code would not reproduce exactly. */
export class FeatureVersionMismatchError extends ModelLoadError {
  override name = 'FeatureVersionMismatchError';
}
