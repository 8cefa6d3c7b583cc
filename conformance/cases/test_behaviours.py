"""Cases that need more than a scripted reply: the client changes the world
between rounds, edits what it sends, or reads the schema.

Each test is named after the case (docs/behaviour.md) it checks.
"""

# Collected from here, in this order: the node ids, golden files and the contract keep it.
from elicit_conformance.cases.behaviours.listing import (
    test_sch_1_sch_2_elicited_parameters_leave_the_input_schema,
    test_gen_1_generated_tools_list_only_what_the_model_supplies,
    test_sch_3_hiding_parameters_keeps_the_tool_description,
)
from elicit_conformance.cases.behaviours.rounds import (
    test_bat_2_body_runs_once_and_only_after_every_answer,
    test_ord_2_ord_6_dependent_question_quotes_the_answer_it_waited_for,
    test_ord_6_dig_4_earlier_answers_survive_and_unasked_keys_are_not_credited,
    test_res_3_resolver_value_on_a_later_round_wins,
    test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped,
    test_dig_5_changed_argument_never_credits_the_old_answer,
    test_res_6_a_blocked_sync_resolver_leaves_the_server_answering,
)
from elicit_conformance.cases.behaviours.schemas import (
    test_typ_1_scalars_are_asked_as_one_value_field,
    test_typ_2_models_literals_and_enums_keep_their_schemas,
    test_typ_3_field_constraints_reach_the_schema,
    test_opt_6_an_optional_question_offers_its_default,
    test_era_8_listings_never_ask,
    test_typ_6_constraints_and_labels_reach_every_scalar_type,
    test_typ_7_titled_and_multiple_choices_keep_their_schemas,
    test_typ_8_field_metadata_never_changes_what_is_asked,
)
from elicit_conformance.cases.behaviours.eras import (
    test_era_1_era_4_one_declared_tool_same_result_on_both_eras,
    test_era_2_imperative_elicit_on_modern_sends_no_request_of_the_servers,
    test_era_2_imperative_elicit_works_on_the_handshake_era,
    test_era_3_hand_returned_ask_is_gated_by_era,
    test_era_5_handshake_client_without_form_elicitation_gets_an_error_not_a_hang,
    test_era_7_modern_client_without_form_elicitation_is_not_asked,
    test_res_1_a_resolver_that_answers_needs_no_elicitation_from_the_client,
)
from elicit_conformance.cases.behaviours.security import (
    test_sec_1_tampered_state_is_rejected_and_the_body_does_not_run,
    test_sec_2_state_replayed_on_another_tool_or_arguments_is_rejected,
    test_sec_3_malformed_replies_never_reach_the_body,
    test_sec_5_a_replayed_last_round_runs_the_body_once,
    test_sec_5_the_round_that_makes_a_task_sent_again_makes_no_second,
)

__all__ = [
    "test_sch_1_sch_2_elicited_parameters_leave_the_input_schema",
    "test_gen_1_generated_tools_list_only_what_the_model_supplies",
    "test_sch_3_hiding_parameters_keeps_the_tool_description",
    "test_bat_2_body_runs_once_and_only_after_every_answer",
    "test_ord_2_ord_6_dependent_question_quotes_the_answer_it_waited_for",
    "test_ord_6_dig_4_earlier_answers_survive_and_unasked_keys_are_not_credited",
    "test_res_3_resolver_value_on_a_later_round_wins",
    "test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped",
    "test_dig_5_changed_argument_never_credits_the_old_answer",
    "test_res_6_a_blocked_sync_resolver_leaves_the_server_answering",
    "test_typ_1_scalars_are_asked_as_one_value_field",
    "test_typ_2_models_literals_and_enums_keep_their_schemas",
    "test_typ_3_field_constraints_reach_the_schema",
    "test_opt_6_an_optional_question_offers_its_default",
    "test_era_8_listings_never_ask",
    "test_typ_6_constraints_and_labels_reach_every_scalar_type",
    "test_typ_7_titled_and_multiple_choices_keep_their_schemas",
    "test_typ_8_field_metadata_never_changes_what_is_asked",
    "test_era_1_era_4_one_declared_tool_same_result_on_both_eras",
    "test_era_2_imperative_elicit_on_modern_sends_no_request_of_the_servers",
    "test_era_2_imperative_elicit_works_on_the_handshake_era",
    "test_era_3_hand_returned_ask_is_gated_by_era",
    "test_era_5_handshake_client_without_form_elicitation_gets_an_error_not_a_hang",
    "test_era_7_modern_client_without_form_elicitation_is_not_asked",
    "test_res_1_a_resolver_that_answers_needs_no_elicitation_from_the_client",
    "test_sec_1_tampered_state_is_rejected_and_the_body_does_not_run",
    "test_sec_2_state_replayed_on_another_tool_or_arguments_is_rejected",
    "test_sec_3_malformed_replies_never_reach_the_body",
    "test_sec_5_a_replayed_last_round_runs_the_body_once",
    "test_sec_5_the_round_that_makes_a_task_sent_again_makes_no_second",
]
