# cmake -DCLUSTERCTL=... -DFORMAT=man|bash|zsh -DOUTPUT=... -P GenerateFromCli.cmake
# Writes the output of `clusterctl __generate FORMAT` to OUTPUT, replacing it
# only when the command succeeded (a failed run leaves no half-written file
# that make would take as up to date).
execute_process(COMMAND ${CLUSTERCTL} __generate ${FORMAT}
                OUTPUT_FILE ${OUTPUT}.tmp RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(REMOVE ${OUTPUT}.tmp)
  message(FATAL_ERROR "clusterctl __generate ${FORMAT} failed: ${result}")
endif()
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
