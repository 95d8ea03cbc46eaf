# cmake -DSOURCE=<folder of MathJax.js (MathJax 2)> -DDESTINATION=<html>/mathjax -P copy_mathjax.cmake
# Copies the part of MathJax 2 the book uses (TeX input, SVG output with the TeX font, the AMS
# extensions): about 3 MB instead of the 50 MB of the whole package.
if(NOT EXISTS ${SOURCE}/MathJax.js)
  message(FATAL_ERROR "no MathJax.js in '${SOURCE}'")
endif()
file(COPY ${SOURCE}/MathJax.js DESTINATION ${DESTINATION})
foreach(folder IN ITEMS extensions jax/input/TeX jax/element localization/en jax/output/SVG/autoload jax/output/SVG/fonts/TeX)
  get_filename_component(parent ${DESTINATION}/${folder} DIRECTORY)
  file(COPY ${SOURCE}/${folder} DESTINATION ${parent})
endforeach()
file(COPY ${SOURCE}/jax/output/SVG/jax.js ${SOURCE}/jax/output/SVG/config.js DESTINATION ${DESTINATION}/jax/output/SVG)
