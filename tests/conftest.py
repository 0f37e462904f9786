import os
import sys
import tempfile

import jax
import pytest

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_num_cpu_devices", 1)  # one CPU device unless a test starts its own process
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "references"))  # the independent reference implementations
sys.path.insert(0, os.path.join(HERE, "web"))  # the page tests' helpers
# The suite's own cache folder, whatever the user's $JAXSOLVE_CACHE says: tests never write
# into a user's cache (nor read tables from it).
os.environ["JAXSOLVE_CACHE"] = os.path.join(tempfile.gettempdir(), f"jaxsolve-test-cache-{os.getuid()}")


MAPPINGS_BEFORE_CLEARING = 30_000


@pytest.fixture(autouse=True, scope="module")
def _free_compiled_programs():
    """The suite compiles thousands of programs in one process, each mapping about twenty
    memory regions; at Linux's 65,530 mappings the next compile dies in XLA (SIGSEGV). After a
    module whose process holds many, drop the compiled programs (``jaxsolve.core.compile.clear``)."""
    yield
    try:
        with open(f"/proc/{os.getpid()}/maps") as f:
            mappings = sum(1 for _ in f)
    except OSError:  # not Linux: no such limit to watch
        return
    if mappings > MAPPINGS_BEFORE_CLEARING:
        import gc

        from jaxsolve.core import compile as compile_cache

        compile_cache.clear()
        gc.collect()


@pytest.fixture(autouse=True)
def _restore_x64():
    """CLI commands configure JAX for the whole process; give every test float64 back."""
    yield
    jax.config.update("jax_enable_x64", True)


SLOW_CASES = (
    # Longer variants of checks whose shorter case stays in the default run, and end-to-end
    # runs that repeat what faster tests check piece by piece: run with ``-m slow`` (CI does).
    "tests/core/test_layered.py::test_every_schedule_matches_closed_form[2]",
    "tests/core/test_schedules.py::test_every_schedule_equals_per_chunk",
    "tests/games/category/test_kniffel_analysis.py::test_advisor_best_equals_policy[goals]",
    "tests/games/category/test_maxi.py::test_moments_only_evaluation_equals_the_split_one",
    "tests/games/category/test_maxi.py::test_reduced_games_match_brute_force[2dice-5open]",
    "tests/games/category/test_maxi.py::test_saved_export_round_trip_and_checks",
    "tests/games/category/test_maxi.py::test_saved_throws_match_brute_force[2dice-4open-throws3-max_saved1]",
    "tests/games/category/test_maxi.py::test_saved_throws_match_brute_force[3dice-4open-throws2-max_saved1]",
    "tests/games/category/test_maxi.py::test_value_only_solve_and_unreachable_saved_rows",
    "tests/games/category/test_twoplayer.py::test_every_position_matches_the_brute_force[yahtzee-2dice-bonus-lose]",
    "tests/games/category/test_twoplayer.py::test_every_position_matches_the_brute_force[yahtzee-2dice-bonus-win]",
    "tests/games/category/test_twoplayer_store.py::test_an_end_game_set_written_in_slices_equals_the_in_memory_solve",
    "tests/games/category/test_twoplayer_store.py::test_the_command_stores_an_end_game_set",
    "tests/games/category/test_winning_numpy.py::test_numpy_response_equals_the_compiled_one[2]",
    "tests/games/category/test_winning_reach.py::test_reach_only_solve_equals_the_whole_subgame",
    "tests/games/category/test_winning_start.py::test_one_game_per_seed_is_play_tables_game",
    "tests/games/category/test_winning_start.py::test_turn_values_match_the_vectors_of_play_table",
    "tests/games/category/test_yatzy.py::test_forced_order_advice_and_simulation",
    "tests/games/category/test_yatzy.py::test_representatives_give_every_state_its_full_solve_value",
    "tests/games/category/test_yatzy_peer.py::test_moves[american]",
    "tests/games/race_n/test_race_n_distributed.py::test_four_player_pig_by_two_processes_equals_one_process_bit_for_bit",
    "tests/games/zehntausend/test_duel.py::test_against_plain_value_iteration[t-300-last]",
    "tests/games/zehntausend/test_duel.py::test_against_plain_value_iteration[t-400-entry]",
    "tests/games/zehntausend/test_duel.py::test_every_option_near_the_goal_against_plain_value_iteration[t-500]",
    "tests/games/zehntausend/test_duel.py::test_every_option_near_the_goal_against_plain_value_iteration[t-500-last]",
    "tests/house/test_new_game.py::test_play_in_a_pseudo_terminal",
    "tests/io/test_export_integrity.py::test_raab_export_killed_at_every_rename[1]",
    "tests/io/test_export_integrity.py::test_raab_export_killed_at_every_rename[2]",
    "tests/io/test_export_integrity.py::test_raab_export_killed_at_every_rename[3]",
    "tests/io/test_provenance.py::test_ctrl_c_during_play_keeps_the_save",
    "tests/play/test_play.py::test_terminal_raab_duel_in_rich_mode",
    "tests/play/test_play.py::test_terminal_zehntausend_with_save_and_resume",
    "tests/web/test_server_bounds.py::test_a_job_nobody_polls_is_cancelled_and_a_polled_one_runs_on",
    "tests/web/test_web_words_browser.py::test_a_finished_games_review_says_where_the_score_stands_among_optimal_games",
)
"""Tests (a function, or one case of it) in the slow set besides those marked in their module.
``tests/test_slow_cases.py`` checks that each still names a collected test."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    slow = set(SLOW_CASES)
    for item in items:
        if item.nodeid in slow or item.nodeid.split("[")[0] in slow:
            item.add_marker(pytest.mark.slow)
