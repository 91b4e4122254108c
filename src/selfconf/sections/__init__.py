"""Per-section computations: what a section notebook glues, as plain functions testable without papermill.

- :mod:`selfconf.sections.design`        the design page's roster, exclusion, routing and benchmark-age counts
- :mod:`selfconf.sections.introduction`  the introduction's range of Brier changes (claim C3)
- :mod:`selfconf.sections.ladder`        Result 2's profile-injection ladder and Result 3's frontier rung
- :mod:`selfconf.sections.manipulation`  Result 3's manipulation probes and the limitation arms
- :mod:`selfconf.sections.realanswers`   Result 1's claims tested on real third-party answers
- :mod:`selfconf.sections.result1`       Result 1's Table 1, calibration, discrimination, Table 2, panels and Figure 1
- :mod:`selfconf.sections.computed`      the result type of a section's ``compute`` (glue values, origins, tables)
- :mod:`selfconf.sections.result2`       page 05: Result 2's ladder, Table 3, Holm family, power, oracle, placebo
- :mod:`selfconf.sections.result3`       page 06: Result 3's frontier rung, microprobe (Table 4), topic pass
- :mod:`selfconf.sections.implications`  page 07: the restated ids and quoted facts of Implications
- :mod:`selfconf.sections.limitations`   page 08: scope, two-stage arm, ladder size, cross-family regrade
- :mod:`selfconf.sections.reconstruction` page 12: counts of the reconstructed rows, CN check, plausibility, fidelity
- :mod:`selfconf.sections.external`      page 22: Table 1 on third-party MMLU-Pro rows beside the paper's rows
"""
