import { IMAGE_TEST_COMMANDS, imageTestSkipReason, imageTestsRequired } from './podman';

// The image test runs where its commands are, is skipped with the reason where one is missing,
// and is never skipped when the environment demands it (CI): there a missing command fails it.
describe('whether the image test runs', () => {
  it('runs where every command it needs is found', () => {
    expect(IMAGE_TEST_COMMANDS).toEqual(['podman', 'runc', 'debootstrap']);
    expect(imageTestSkipReason([], {})).toBeUndefined();
    expect(imageTestSkipReason([], { PIM_REQUIRE_IMAGE_TESTS: '1' })).toBeUndefined();
  });

  it('is skipped where one is missing, naming it, how to install it and how to demand the test', () => {
    const reason = imageTestSkipReason(['podman', 'runc'], {});
    expect(reason).toMatch(/^skipped: podman, runc not found on this machine\. Install with: apt-get .*podman/);
    expect(reason).toContain('PIM_REQUIRE_IMAGE_TESTS=1');
    expect(imageTestSkipReason(['runc'], { PIM_REQUIRE_IMAGE_TESTS: '0' })).toContain('runc not found');
  });

  it('is not skipped when PIM_REQUIRE_IMAGE_TESTS demands it: it runs and fails on the missing command', () => {
    expect(imageTestSkipReason(['podman'], { PIM_REQUIRE_IMAGE_TESTS: '1' })).toBeUndefined();
    expect(imageTestSkipReason(['podman'], { PIM_REQUIRE_IMAGE_TESTS: 'true' })).toBeUndefined();
    expect(
      ['1', 'true', ' TRUE ', '0', 'false', ''].map((v) => imageTestsRequired({ PIM_REQUIRE_IMAGE_TESTS: v })),
    ).toEqual([true, true, true, false, false, false]);
  });
});
