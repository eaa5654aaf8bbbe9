"""The test harness itself: what the suite's speed relies on."""
import pytest


@pytest.mark.xdist_group("harness")
def test_xdist_groups_are_honoured(request):
    """Session fixtures shared by a group's tests (corpus gates, red-team runs, golden
    candidates) are made once only when `--dist loadgroup` sends the group to one worker; xdist
    records the group in the node id.  (pytest 9.2 with xdist 3.8 silently ignored groups.)"""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run with --dist loadgroup")
    assert request.node.nodeid.endswith("@harness")
