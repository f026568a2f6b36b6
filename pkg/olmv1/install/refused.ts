/** An expected failure of an install, thrown inside the package and returned as a value by installExtension. */
export class InstallRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallRefused';
  }
}
