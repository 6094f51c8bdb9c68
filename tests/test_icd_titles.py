"""Every ICD-10 chapter V title is a diagnosis as written: no word of a title ("withdrawal state",
"without psychotic symptoms", "not superimposed", "mild or moderate", "mixed", "in remission",
"atypical") is read as a code withdrawn, denied, hedged or set aside (the thirteenth probe round
found "Alcohol withdrawal state with delirium (F10.4)" read as a code withdrawn)."""

from __future__ import annotations

import pytest

from selfdx.instruments.answers.icd_code import reply_code

# WHO ICD-10 chapter V: a code and its title, across the blocks
TITLES = [
    ("F00.1", "Dementia in Alzheimer's disease with late onset"),
    ("F01.1", "Multi-infarct dementia"),
    ("F05.0", "Delirium, not superimposed on dementia"),
    ("F06.2", "Organic delusional [schizophrenia-like] disorder"),
    ("F07.0", "Organic personality disorder"),
    ("F10.2", "Mental and behavioural disorders due to use of alcohol: dependence syndrome"),
    ("F10.3", "Mental and behavioural disorders due to use of alcohol: withdrawal state"),
    (
        "F10.4",
        "Mental and behavioural disorders due to use of alcohol: withdrawal state with delirium",
    ),
    ("F10.5", "Mental and behavioural disorders due to use of alcohol: psychotic disorder"),
    ("F10.6", "Alcohol amnesic syndrome"),
    ("F11.2", "Mental and behavioural disorders due to use of opioids: dependence syndrome"),
    ("F12.5", "Cannabis-induced psychotic disorder"),
    ("F15.1", "Harmful use of other stimulants"),
    ("F20.0", "Paranoid schizophrenia"),
    ("F20.1", "Hebephrenic schizophrenia"),
    ("F20.2", "Catatonic schizophrenia"),
    ("F20.3", "Undifferentiated schizophrenia"),
    ("F20.5", "Residual schizophrenia"),
    ("F21", "Schizotypal disorder"),
    ("F22.0", "Delusional disorder"),
    ("F23.0", "Acute polymorphic psychotic disorder without symptoms of schizophrenia"),
    ("F23.1", "Acute polymorphic psychotic disorder with symptoms of schizophrenia"),
    ("F23.2", "Acute schizophrenia-like psychotic disorder"),
    ("F25.0", "Schizoaffective disorder, manic type"),
    ("F25.1", "Schizoaffective disorder, depressive type"),
    ("F25.2", "Schizoaffective disorder, mixed type"),
    ("F30.1", "Mania without psychotic symptoms"),
    ("F30.2", "Mania with psychotic symptoms"),
    ("F31.0", "Bipolar affective disorder, current episode hypomanic"),
    ("F31.1", "Bipolar affective disorder, current episode manic without psychotic symptoms"),
    ("F31.3", "Bipolar affective disorder, current episode mild or moderate depression"),
    (
        "F31.4",
        "Bipolar affective disorder, current episode severe depression without psychotic symptoms",
    ),
    ("F31.6", "Bipolar affective disorder, current episode mixed"),
    ("F31.7", "Bipolar affective disorder, currently in remission"),
    ("F32.0", "Mild depressive episode"),
    ("F32.1", "Moderate depressive episode"),
    ("F32.2", "Severe depressive episode without psychotic symptoms"),
    ("F32.3", "Severe depressive episode with psychotic symptoms"),
    ("F33.0", "Recurrent depressive disorder, current episode mild"),
    ("F33.4", "Recurrent depressive disorder, currently in remission"),
    ("F34.0", "Cyclothymia"),
    ("F34.1", "Dysthymia"),
    ("F40.0", "Agoraphobia"),
    ("F40.1", "Social phobias"),
    ("F40.2", "Specific (isolated) phobias"),
    ("F41.0", "Panic disorder [episodic paroxysmal anxiety]"),
    ("F41.1", "Generalized anxiety disorder"),
    ("F41.2", "Mixed anxiety and depressive disorder"),
    ("F42.0", "Predominantly obsessional thoughts or ruminations"),
    ("F42.1", "Predominantly compulsive acts [obsessional rituals]"),
    ("F42.2", "Mixed obsessional thoughts and acts"),
    ("F43.0", "Acute stress reaction"),
    ("F43.1", "Post-traumatic stress disorder"),
    ("F43.2", "Adjustment disorders"),
    ("F44.0", "Dissociative amnesia"),
    ("F44.4", "Dissociative motor disorders"),
    ("F45.0", "Somatization disorder"),
    ("F45.2", "Hypochondriacal disorder"),
    ("F48.0", "Neurasthenia"),
    ("F50.0", "Anorexia nervosa"),
    ("F50.1", "Atypical anorexia nervosa"),
    ("F50.2", "Bulimia nervosa"),
    ("F51.0", "Nonorganic insomnia"),
    (
        "F53.0",
        "Mild mental and behavioural disorders associated with the puerperium, "
        "not elsewhere classified",
    ),
    ("F60.2", "Dissocial personality disorder"),
    ("F60.3", "Emotionally unstable personality disorder"),
    ("F60.5", "Anankastic personality disorder"),
    ("F60.6", "Anxious [avoidant] personality disorder"),
    ("F63.2", "Pathological stealing [kleptomania]"),
    ("F84.0", "Childhood autism"),
    ("F84.5", "Asperger syndrome"),
    ("F90.0", "Disturbance of activity and attention"),
    ("F91.3", "Oppositional defiant disorder"),
    ("F95.2", "Combined vocal and multiple motor tic disorder [de la Tourette]"),
    ("F98.0", "Nonorganic enuresis"),
]


@pytest.mark.parametrize(("code", "title"), TITLES)
def test_a_title_with_its_code_reads_as_that_code(code, title):
    for reply in (
        f"DIAGNOSE: {title} ({code})",
        f"DIAGNOSE\n{title} ({code}). The history supports it.",
        f"DIAGNOSE: {code} {title}",
    ):
        assert reply_code(reply) == code, reply
